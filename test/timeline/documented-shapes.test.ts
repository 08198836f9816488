import { Ajv2020 } from 'ajv/dist/2020.js';
import formatsPlugin from 'ajv-formats';
import { expect, it } from 'vitest';
import { ALWAYS_OPEN, FAST_AGENT_ENV, aiMessages, inbound, messages, say } from '../agent/helpers.js';
import { createLead, describeEachDialect, uniquePhone, type Client, type TestServer } from '../support/harness.js';
import { statusAfterStep } from '../support/messages.js';
import { startEachTestInDaytime } from '../support/clock-hours.js';

/**
 * The answers of the operations in docs/operations.md checked against the
 * service's own OpenAPI document: each status is documented and each body fits
 * its schema (the timeline's event union, the switch's `opening`, sendMessage's
 * additions), so the served reference is what clients get.
 */

type Doc = { paths: Record<string, Record<string, { responses?: Record<string, unknown> }>> };

async function checker(ts: TestServer) {
  const doc = (await ts.raw('/v1/openapi.json')).body as Doc;
  const addFormats = ((formatsPlugin as unknown as { default?: unknown }).default ?? formatsPlugin) as (
    a: Ajv2020,
  ) => Ajv2020;
  const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));
  ajv.addSchema({ ...doc, $id: 'openapi' });
  const pointer = (...parts: string[]) =>
    parts.map((p) => encodeURIComponent(p.replace(/~/g, '~0').replace(/\//g, '~1'))).join('/');
  return async <M extends string, P extends string>(
    client: Client,
    method: M,
    template: string,
    path: P,
    body?: unknown,
  ) => {
    const res = await client.call(method, path, body);
    const name = `${method} ${template} -> ${res.status}`;
    expect(
      doc.paths[template]?.[method.toLowerCase()]?.responses?.[String(res.status)],
      `${name} is not documented`,
    ).toBeDefined();
    const validate = ajv.getSchema(
      `openapi#/${pointer('paths', template, method.toLowerCase(), 'responses', String(res.status), 'content', 'application/json', 'schema')}`,
    );
    expect(validate, `${name} has no schema`).toBeDefined();
    const ok = validate!(res.body);
    expect({ name, errors: ok ? null : validate!.errors, body: ok ? null : res.body }).toEqual({
      name,
      errors: null,
      body: null,
    });
    return res;
  };
}

describeEachDialect(
  'operations answer in the shapes the OpenAPI document describes',
  (ctx) => {
    startEachTestInDaytime(ctx);
    it('switchCustomerProfile, resubscribe, sendMessage and every kind of timeline event', async () => {
      const ts = ctx();
      const call = await checker(ts);
      const { acme } = ts;
      await acme.patch('/settings', ALWAYS_OPEN);
      await acme.post('/customerProfiles', { name: 'shape-quiz', questions: ['Budget?'] });
      const phone = uniquePhone();
      const leadId = await createLead(acme, {
        phone,
        email: `shape-${Date.now()}@example.com`,
        customerProfile: 'shape-quiz',
      });
      const L = '/leads/{leadId}';

      await call(acme, 'POST', `${L}/switchCustomerProfile`, `/leads/${leadId}/switchCustomerProfile`, {
        profile: 'default',
        sendMessage: true,
        messageDelayMins: 5,
      });
      await call(acme, 'POST', `${L}/switchCustomerProfile`, `/leads/${leadId}/switchCustomerProfile`, {
        profile: 'default',
        sendMessage: true,
      });
      // Written before the lead moves on (an opening for a profile the lead has left is skipped).
      await ts.runDue();
      expect(aiMessages(await messages(acme, leadId))).toHaveLength(1);
      await call(acme, 'POST', `${L}/switchCustomerProfile`, `/leads/${leadId}/switchCustomerProfile`, {
        profile: 'shape-quiz',
      });
      await call(acme, 'POST', `${L}/switchCustomerProfile`, `/leads/${leadId}/switchCustomerProfile`, {
        profile: 'nope',
        sendMessage: true,
      });

      await say(acme, leadId, phone, 'I am ready to buy');
      await acme.post(`/leads/${leadId}/addContext`, { context: 'note', command: 'do something odd' });
      const sent = await call(acme, 'POST', `${L}/sendMessage`, `/leads/${leadId}/sendMessage`, {
        message: 'hi',
        channel: 'call',
        scheduleFollowUps: true,
      });
      await call(acme, 'POST', `${L}/sendMessage`, `/leads/${leadId}/sendMessage`, {
        message: 'mail',
        channel: 'email',
      });
      await statusAfterStep(ctx(), acme, leadId, sent.body.id, (s) => s === 'sent');
      await call(acme, 'POST', `${L}/unsubscribe`, `/leads/${leadId}/unsubscribe`, { channels: ['call'] });
      await call(acme, 'POST', `${L}/resubscribe`, `/leads/${leadId}/resubscribe`);
      await inbound(acme, phone, 'STOP');
      await call(acme, 'POST', `${L}/sendMessage`, `/leads/${leadId}/sendMessage`, {
        message: 'blocked',
        sendWhenOff: true,
      });
      await call(acme, 'POST', `${L}/resubscribe`, `/leads/${leadId}/resubscribe`, { channels: ['sms'] });

      const events = await call(acme, 'GET', `${L}/events`, `/leads/${leadId}/events?since=2000-01-01T00:00:00Z`);
      expect(new Set(events.body.events.map((e) => e.type))).toEqual(
        new Set(['MESSAGE', 'CALL', 'EMAIL', 'TOOL_CALL', 'CUSTOM', 'COMPLIANCE_BLOCKED']),
      );
      const page = await call(acme, 'GET', `${L}/events`, `/leads/${leadId}/events?since=2000-01-01T00:00:00Z&limit=2`);
      expect(page.body.nextToken).toEqual(expect.any(String));
      await call(acme, 'GET', `${L}/events`, `/leads/${leadId}/events`);
      await call(acme, 'GET', `${L}/events`, `/leads/${leadId}/events?since=2000-01-01T00:00:00Z&types=NOPE`);
      await call(ts.beta, 'GET', `${L}/events`, `/leads/${leadId}/events?since=2000-01-01T00:00:00Z`);
    });
  },
  FAST_AGENT_ENV,
);
