import { expect, it } from 'vitest';
import { expectError } from '../support/assert.js';
import { createLead, describeEachDialect, type Client, type TestServer } from '../support/harness.js';

/**
 * docs.apten.ai/api-reference/leads/update: "Updates properties of a specific
 * lead". All fields optional: email, timeZone, additionalInfo (merged, a key
 * set to null removed), followUpConfig (step number to {hours, channel:
 * text|call|email, voicemailEnabled (call only), strategyIds}) and followUpStep
 * (a positive step, -1 STOPPED, -2 LONG_TERM). "When updating followUpStep
 * and/or followUpConfig, the timer always resets to now + hours": step only
 * schedules that step; config only reschedules with the new timing, keeping
 * the current step; both is a full reset at the given step. Answer: "Lead
 * updated successfully.".
 */

const HOUR = 3_600_000;
const CONFIG = {
  1: { hours: 2, channel: 'text' },
  2: { hours: 24, channel: 'call', voicemailEnabled: true },
  3: { hours: 48, channel: 'email', strategyIds: 'auto' },
};

async function patch(client: Client, id: string, body: unknown) {
  return client.patch(`/leads/${id}`, body);
}

/** The PATCH answers, and the due time it set lies within `hours` of the clock before and after the call. */
async function patchAndTime(ts: TestServer, id: string, body: unknown) {
  const before = ts.clock.now().getTime();
  const res = await patch(ts.acme, id, body);
  const after = ts.clock.now().getTime();
  return {
    res,
    within: (hours: number) => {
      const due = new Date(res.body.nextFollowUpAt!).getTime();
      expect(due).toBeGreaterThanOrEqual(before + hours * HOUR);
      expect(due).toBeLessThanOrEqual(after + hours * HOUR);
    },
  };
}

describeEachDialect('docs.apten.ai/api-reference/leads/update', (ctx) => {
  it('takes the documented body and answers the documented message, the updated lead beside it', async () => {
    const ts = ctx();
    const id = await createLead(ts.acme, { additionalInfo: { keep: 'yes', drop: 'me', change: 1 } });
    const res = await patch(ts.acme, id, {
      email: 'Ann.Lee@Example.com',
      timeZone: 'America/New_York',
      additionalInfo: { change: 2, drop: null, added: 'new' },
      followUpConfig: CONFIG,
      followUpStep: 1,
    });
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('Lead updated successfully.');
    expect(res.body).toMatchObject({
      id,
      email: 'ann.lee@example.com',
      timeZone: 'America/New_York',
      followUpStep: 1,
      followUpConfig: CONFIG,
    });
    const lead = (await ts.acme.get(`/leads/${id}`)).body;
    expect(lead.additionalInfo).toEqual({ keep: 'yes', change: 2, added: 'new' });
    expect(lead).toMatchObject({
      email: 'ann.lee@example.com',
      timeZone: 'America/New_York',
      followUpConfig: CONFIG,
      followUpStep: 1,
    });
    expect(lead.nextFollowUpAt).toBe(res.body.nextFollowUpAt);
    expect(lead.followUpNote).toBeNull();
  });

  it('shows no follow-up state on a lead that never had one', async () => {
    const ts = ctx();
    const id = await createLead(ts.acme);
    const lead = (await ts.acme.get(`/leads/${id}`)).body;
    expect(lead).toMatchObject({ followUpConfig: null, followUpStep: null, nextFollowUpAt: null, followUpNote: null });
    const listed = (await ts.acme.get('/leads?limit=1000')).body.leads.find((l: { id: string }) => l.id === id);
    expect(listed).toMatchObject({ followUpConfig: null, followUpStep: null, nextFollowUpAt: null });
  });

  it('step only: schedules that step at now + its hours', async () => {
    const ts = ctx();
    const id = await createLead(ts.acme);
    expect((await patch(ts.acme, id, { followUpConfig: CONFIG })).status).toBe(200);
    const { res, within } = await patchAndTime(ts, id, { followUpStep: 3 });
    expect(res.status).toBe(200);
    expect(res.body.followUpStep).toBe(3);
    within(48);
  });

  it('config only: reschedules with the new timing and keeps the current step', async () => {
    const ts = ctx();
    const id = await createLead(ts.acme);
    expect((await patch(ts.acme, id, { followUpConfig: CONFIG, followUpStep: 2 })).body.followUpStep).toBe(2);
    const slower = { ...CONFIG, 2: { hours: 72, channel: 'text' } };
    const { res, within } = await patchAndTime(ts, id, { followUpConfig: slower });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ followUpStep: 2, followUpConfig: slower });
    within(72);
  });

  it('config only on a lead without a step: the cadence starts at its first step', async () => {
    const ts = ctx();
    const id = await createLead(ts.acme);
    const { res, within } = await patchAndTime(ts, id, {
      followUpConfig: { 2: { hours: 5, channel: 'email' }, 4: { hours: 1, channel: 'text' } },
    });
    expect(res.body.followUpStep).toBe(2);
    within(5);
  });

  it('both: a full reset with the new config at the given step', async () => {
    const ts = ctx();
    const id = await createLead(ts.acme);
    await patch(ts.acme, id, { followUpConfig: CONFIG, followUpStep: 3 });
    const fresh = { 1: { hours: 0.5, channel: 'text' }, 2: { hours: 6, channel: 'text' } };
    const { res, within } = await patchAndTime(ts, id, { followUpConfig: fresh, followUpStep: 1 });
    expect(res.body).toMatchObject({ followUpStep: 1, followUpConfig: fresh });
    within(0.5);
  });

  it('-1 stops the follow-ups and -2 moves the lead to long-term nurture; nothing is due', async () => {
    const ts = ctx();
    const id = await createLead(ts.acme);
    await patch(ts.acme, id, { followUpConfig: CONFIG, followUpStep: 1 });
    const stopped = await patch(ts.acme, id, { followUpStep: -1 });
    expect(stopped.body).toMatchObject({ followUpStep: -1, nextFollowUpAt: null, followUpConfig: CONFIG });
    expect(stopped.body.followUpNote).toMatch(/^stopped by the API/);
    // Config only keeps a stopped cadence stopped (the current step is kept).
    expect((await patch(ts.acme, id, { followUpConfig: CONFIG })).body).toMatchObject({
      followUpStep: -1,
      nextFollowUpAt: null,
    });
    const nurture = await patch(ts.acme, id, { followUpStep: -2 });
    expect(nurture.body).toMatchObject({ followUpStep: -2, nextFollowUpAt: null });
    // -1 and -2 need no config at all.
    const bare = await createLead(ts.acme);
    expect((await patch(ts.acme, bare, { followUpStep: -1 })).body).toMatchObject({
      followUpStep: -1,
      followUpConfig: null,
    });
  });

  it('accepts every documented step shape: voicemailEnabled on call, strategyIds as "auto" or a list, Parley\'s own channel names', async () => {
    const ts = ctx();
    const id = await createLead(ts.acme);
    const config = {
      1: { hours: 1, channel: 'call', voicemailEnabled: false, strategyIds: ['s1', 's2'] },
      2: { hours: 1.5, channel: 'sms' },
      3: { hours: 3, channel: 'voice', voicemailEnabled: true },
    };
    const res = await patch(ts.acme, id, { followUpConfig: config });
    expect(res.status).toBe(200);
    expect(res.body.followUpConfig).toEqual(config);
  });

  // The digit keys of followUpConfig are written `followUpConfig.1` or `followUpConfig[1]` by the validator: both name the step.
  it.each([
    [
      'a step without hours',
      { followUpConfig: { 1: { channel: 'text' } } },
      /^followUpConfig(\.1|\[1\])\.hours is required$/,
    ],
    [
      'a step without channel',
      { followUpConfig: { 2: { hours: 3 } } },
      /^followUpConfig(\.2|\[2\])\.channel is required$/,
    ],
    [
      'an unknown channel',
      { followUpConfig: { 1: { hours: 3, channel: 'fax' } } },
      /^followUpConfig(\.1|\[1\])\.channel must be one of: text, call, email/,
    ],
    [
      'zero hours',
      { followUpConfig: { 1: { hours: 0, channel: 'text' } } },
      /^followUpConfig(\.1|\[1\])\.hours must be a number of hours greater than 0 and at most 8784 \(a year\)$/,
    ],
    [
      'hours as text',
      { followUpConfig: { 1: { hours: '3', channel: 'text' } } },
      /^followUpConfig(\.1|\[1\])\.hours must be a number of hours greater than 0 and at most 8784 \(a year\)$/,
    ],
    [
      'voicemail on a text step',
      {
        followUpConfig: { 1: { hours: 1, channel: 'call' }, 2: { hours: 3, channel: 'text', voicemailEnabled: true } },
      },
      'followUpConfig step 2: voicemailEnabled is only valid for the call channel, not text',
    ],
    [
      'voicemail on an email step',
      { followUpConfig: { 1: { hours: 3, channel: 'email', voicemailEnabled: false } } },
      'followUpConfig step 1: voicemailEnabled is only valid for the call channel, not email',
    ],
    [
      'a key that is not a step number',
      { followUpConfig: { first: { hours: 3, channel: 'text' } } },
      /^followUpConfig must have step numbers as keys/,
    ],
    [
      'step 0 as a key',
      { followUpConfig: { 0: { hours: 3, channel: 'text' } } },
      /^followUpConfig must have step numbers as keys/,
    ],
    [
      'an unknown field in a step',
      { followUpConfig: { 1: { hours: 3, channel: 'text', delay: 2 } } },
      /^followUpConfig(\.1|\[1\])\.delay is not allowed$/,
    ],
    ['a config that is not an object', { followUpConfig: [1, 2] }, /^followUpConfig must be /],
    [
      'followUpStep 0',
      { followUpStep: 0 },
      'followUpStep must be a positive step number (1, 2, 3, ...), -1 to stop follow-ups or -2 for long-term nurture',
    ],
    [
      'followUpStep -3',
      { followUpStep: -3 },
      'followUpStep must be a positive step number (1, 2, 3, ...), -1 to stop follow-ups or -2 for long-term nurture',
    ],
    [
      'followUpStep 1.5',
      { followUpStep: 1.5 },
      'followUpStep must be a positive step number (1, 2, 3, ...), -1 to stop follow-ups or -2 for long-term nurture',
    ],
    [
      'followUpStep as text',
      { followUpStep: '1' },
      'followUpStep must be a positive step number (1, 2, 3, ...), -1 to stop follow-ups or -2 for long-term nurture',
    ],
    ['a step without any config', { followUpStep: 2 }, 'followUpStep 2 needs a followUpConfig: the lead has none'],
    [
      'a step the config does not have',
      { followUpConfig: { 1: { hours: 1, channel: 'text' }, 2: { hours: 2, channel: 'text' } }, followUpStep: 5 },
      'followUpStep 5 is not a step of followUpConfig (steps: 1, 2)',
    ],
    ['an unknown field', { nickname: 'Annie' }, 'nickname is not allowed'],
    ['a field a client may not write', { isUnsubscribed: false }, 'isUnsubscribed is not allowed'],
    ['the lead id', { id: '0190a5b2-7c1e-7a3b-8f00-4b1d2c3e4f50' }, 'id is not allowed'],
  ])('refuses %s with a sentence naming the field, and changes nothing', async (_name, body, message) => {
    const ts = ctx();
    const id = await createLead(ts.acme, { additionalInfo: { a: 1 } });
    const before = (await ts.acme.get(`/leads/${id}`)).body;
    const res = await patch(ts.acme, id, { additionalInfo: { a: 2 }, ...body });
    expectError(res, 400, message);
    expect((await ts.acme.get(`/leads/${id}`)).body).toEqual(before);
  });

  it('config only whose new steps lack the current one: refused, naming what to send', async () => {
    const ts = ctx();
    const id = await createLead(ts.acme);
    await patch(ts.acme, id, { followUpConfig: CONFIG, followUpStep: 3 });
    const before = (await ts.acme.get(`/leads/${id}`)).body;
    const res = await patch(ts.acme, id, { followUpConfig: { 1: { hours: 1, channel: 'text' } } });
    expectError(
      res,
      400,
      "followUpConfig has no step 3, the step the lead's follow-ups are at (steps: 1); send followUpStep with it to choose where to restart",
    );
    expect((await ts.acme.get(`/leads/${id}`)).body).toEqual(before);
  });

  it('an empty followUpConfig removes the cadence', async () => {
    const ts = ctx();
    const id = await createLead(ts.acme);
    await patch(ts.acme, id, { followUpConfig: CONFIG, followUpStep: 2 });
    const res = await patch(ts.acme, id, { followUpConfig: {} });
    expect(res.body).toMatchObject({ followUpConfig: null, followUpStep: null, nextFollowUpAt: null });
  });

  it('a lead of another organization does not exist for the caller', async () => {
    const ts = ctx();
    const id = await createLead(ts.beta);
    expectError(await patch(ts.acme, id, { followUpStep: -1 }), 404, `Resource not found: Lead with id ${id}`);
    expect((await ts.beta.get(`/leads/${id}`)).body.followUpStep).toBeNull();
  });
});
