import { expect, it } from 'vitest';
import { ALWAYS_OPEN, FAST_AGENT_ENV, aiMessages, inbound, messages } from '../agent/helpers.js';
import type { Method } from '../support/api.js';
import { createLead, describeEachDialect, uniquePhone, type TestServer, type V1Answer } from '../support/harness.js';
import { statusAfterStep } from '../support/messages.js';
import { MIDDAY, startEachTestInDaytime } from '../support/clock-hours.js';

/**
 * The reference pages of docs.apten.ai for the lead operations, read the way a
 * client of the hosted service reads the answers: the example request sent as
 * written, then status, field names, types and message texts. Parley's extra
 * fields are additions; the documented ones are exact.
 */

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/** A request the way the reference's curl example sends it: the key, and a body only if the example has one. */
/** A request as curl sends it (the key, and a JSON body): answered as the route's schema says. */
async function curl<M extends Method, P extends string>(ts: TestServer, method: M, path: P, body?: unknown) {
  const headers: Record<string, string> = { 'x-api-key': ts.acme.key };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await ts.raw(`/v1${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return res as V1Answer<M, P>;
}

describeEachDialect(
  'docs.apten.ai/api-reference/leads/switch-customer-profile',
  (ctx) => {
    startEachTestInDaytime(ctx);
    it('the example body (all five fields) answers the documented four fields, and the message goes out', async () => {
      const ts = ctx();
      await ts.acme.patch('/settings', ALWAYS_OPEN);
      const leadId = await createLead(ts.acme, { firstName: 'Jo' });
      const res = await curl(ts, 'POST', `/leads/${leadId}/switchCustomerProfile`, {
        profile: 'default',
        sendMessage: true,
        messageDelayHours: 0,
        messageDelayMins: 0,
        clearMemory: true,
      });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        message: 'Switched profile successfully.',
        sendMessage: true,
        messageDelayHours: 0,
        messageDelayMins: 0,
      });
      expect(typeof res.body.sendMessage).toBe('boolean');
      expect(Number.isInteger(res.body.messageDelayHours) && Number.isInteger(res.body.messageDelayMins)).toBe(true);
      // `default` has no opening template: the AI writes the opening, as the hosted service's does.
      await ts.runDue();
      const sent = await messages(ts.acme, leadId);
      expect(aiMessages(sent).map((m) => m.status)).toEqual(['sent']);
    });

    it("the response example's values: messageDelayMins 30 is echoed with messageDelayHours 0", async () => {
      const ts = ctx();
      const leadId = await createLead(ts.acme);
      const res = await curl(ts, 'POST', `/leads/${leadId}/switchCustomerProfile`, {
        profile: 'default',
        sendMessage: true,
        messageDelayMins: 30,
      });
      expect(res.body).toMatchObject({
        message: 'Switched profile successfully.',
        sendMessage: true,
        messageDelayHours: 0,
        messageDelayMins: 30,
      });
      // Hours take precedence over minutes, as the page says.
      const both = await curl(ts, 'POST', `/leads/${leadId}/switchCustomerProfile`, {
        profile: 'default',
        messageDelayHours: 2,
        messageDelayMins: 30,
      });
      expect(both.body).toEqual({
        message: 'Switched profile successfully.',
        sendMessage: false,
        messageDelayHours: 2,
        messageDelayMins: 0,
      });
    });
  },
  FAST_AGENT_ENV,
);

describeEachDialect('docs.apten.ai/api-reference/leads/resubscribe', (ctx) => {
  startEachTestInDaytime(ctx);
  it('the curl example (no body, no content type) answers "Lead resubscribed successfully." and turns the AI on for the lead', async () => {
    const ts = ctx();
    const leadId = await createLead(ts.acme);
    await ts.acme.post(`/leads/${leadId}/unsubscribe`);
    await ts.acme.post(`/leads/${leadId}/turnOffAi`);
    const res = await curl(ts, 'POST', `/leads/${leadId}/resubscribe`);
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('Lead resubscribed successfully.');
    expect(typeof res.body.message).toBe('string');
    const lead = (await ts.acme.get(`/leads/${leadId}`)).body;
    expect(lead).toMatchObject({ isAiOn: true, isUnsubscribed: false });
  });

  it('a lead that opted out with a default keyword (STOP) is ineligible: 409 with a clear message, nothing changes', async () => {
    const ts = ctx();
    const phone = uniquePhone();
    const leadId = await createLead(ts.acme, { phone });
    await inbound(ts.acme, phone, 'STOP');
    await ts.acme.post(`/leads/${leadId}/turnOffAi`);
    const res = await curl(ts, 'POST', `/leads/${leadId}/resubscribe`);
    expect(res.status).toBe(409);
    expect(res.body.message).toBe(
      'The lead opted out of sms by replying with a STOP keyword; only the lead can opt back in, by texting START',
    );
    expect((await ts.acme.get(`/leads/${leadId}`)).body).toMatchObject({
      isAiOn: false,
      subscriptions: { sms: 'unsubscribed' },
    });
  });

  it("`call`, the reference's name for the voice channel, is accepted in channels (answered in Parley's names)", async () => {
    const ts = ctx();
    const leadId = await createLead(ts.acme);
    const off = await ts.acme.post(`/leads/${leadId}/unsubscribe`, { channels: ['call'] });
    expect(off.body).toEqual({ message: 'Lead unsubscribed successfully.', channels: ['voice'] });
    expect((await ts.acme.get(`/leads/${leadId}`)).body.subscriptions).toMatchObject({
      sms: 'subscribed',
      voice: 'unsubscribed',
    });
    const on = await ts.acme.post(`/leads/${leadId}/resubscribe`, { channels: ['call'] });
    expect(on.body).toEqual({ message: 'Lead resubscribed successfully.', channels: ['voice'] });
    const bad = await ts.acme.post(`/leads/${leadId}/unsubscribe`, { channels: ['phone'] });
    expect(bad).toMatchObject({
      status: 400,
      body: { message: 'channels must include at least one of: sms, voice, email' },
    });
  });
});

describeEachDialect('docs.apten.ai/api-reference/leads/send-message', (ctx) => {
  startEachTestInDaytime(ctx);
  it('the example body (all five fields) answers "Message sent successfully." and the message goes out', async () => {
    const ts = ctx();
    // overrideBusinessHours keeps the legal window where the lead is: midday there.
    ts.clock.set(MIDDAY);
    await ts.acme.patch('/settings', ALWAYS_OPEN);
    const leadId = await createLead(ts.acme);
    const res = await curl(ts, 'POST', `/leads/${leadId}/sendMessage`, {
      message: 'Hi there!',
      scheduledTime: '2024-05-17T21:09:13Z',
      sendWhenOff: true,
      scheduleFollowUps: true,
      overrideBusinessHours: true,
    });
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('Message sent successfully.');
    // A scheduledTime in the past means now.
    await statusAfterStep(ts, ts.acme, leadId, res.body.id, (s) => s === 'sent');
  });

  it('only message is required; a missing one is a 400 naming it', async () => {
    const ts = ctx();
    await ts.acme.patch('/settings', ALWAYS_OPEN);
    const leadId = await createLead(ts.acme);
    expect((await curl(ts, 'POST', `/leads/${leadId}/sendMessage`, { message: 'Just text' })).body.message).toBe(
      'Message sent successfully.',
    );
    const missing = await curl(ts, 'POST', `/leads/${leadId}/sendMessage`, { sendWhenOff: true });
    expect(missing.status).toBe(400);
    expect(missing.body.message).toMatch(/message/);
  });
});

describeEachDialect(
  'docs.apten.ai/api-reference/leads/list-events',
  (ctx) => {
    startEachTestInDaytime(ctx);
    it('the example: MESSAGE and COMPLIANCE_BLOCKED events in the documented shape, updatedAt ascending, nextToken null at the end', async () => {
      const ts = ctx();
      await ts.acme.patch('/settings', ALWAYS_OPEN);
      const phone = uniquePhone();
      const leadId = await createLead(ts.acme, { phone });
      await ts.acme.post(`/leads/${leadId}/turnOffAi`);
      await inbound(ts.acme, phone, 'Hi, I am interested');
      await ts.acme.post('/dnc/register', { phone });
      await ts.acme.post(`/leads/${leadId}/sendMessage`, { message: 'Blocked', sendWhenOff: true });
      const res = await curl(ts, 'GET', `/leads/${leadId}/events?since=2026-01-01T00:00:00Z`);
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(['events', 'nextToken']);
      expect(res.body.nextToken).toBeNull();
      const [message, blocked] = res.body.events;
      for (const e of res.body.events) {
        for (const key of ['id', 'roomId', 'orgId', 'type', 'timestamp', 'updatedAt', 'data'])
          expect(e, key).toHaveProperty(key);
        expect(e.timestamp).toMatch(ISO);
        expect(e.updatedAt).toMatch(ISO);
        expect(e.roomId).toBe(leadId);
      }
      expect(message).toMatchObject({
        type: 'MESSAGE',
        data: {
          direction: 'INBOUND',
          content: { text: 'Hi, I am interested' },
          isAiGenerated: false,
          deliveryChannel: 'SMS',
        },
      });
      expect(blocked).toMatchObject({
        type: 'COMPLIANCE_BLOCKED',
        data: { channel: 'sms', reason: 'DNC', source: 'http', triggeredBy: 'user' },
      });
      expect(blocked!.updatedAt >= message!.updatedAt).toBe(true);
    });

    it("types=MESSAGE,CALL (the page's example) and limit 1..1000, default 100", async () => {
      const ts = ctx();
      const leadId = await createLead(ts.acme);
      await ts.acme.post(`/leads/${leadId}/addContext`, { context: 'a note' });
      const filtered = await curl(ts, 'GET', `/leads/${leadId}/events?since=2026-01-01T00:00:00Z&types=MESSAGE,CALL`);
      expect(filtered.body).toEqual({ events: [], nextToken: null });
      const custom = await curl(
        ts,
        'GET',
        `/leads/${leadId}/events?since=2026-01-01T00:00:00Z&types=CUSTOM&limit=1000`,
      );
      expect(custom.body.events.map((e: { type: string }) => e.type)).toEqual(['CUSTOM']);
      expect((await curl(ts, 'GET', `/leads/${leadId}/events?since=2026-01-01T00:00:00Z&limit=1001`)).status).toBe(400);
      // since is required on the page.
      expect((await curl(ts, 'GET', `/leads/${leadId}/events`)).status).toBe(400);
    });
  },
  FAST_AGENT_ENV,
);
