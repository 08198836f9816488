import { describe, expect, it } from 'vitest';
import { addToDnc } from '../../src/suppression-records/dnc.repository.js';
import type { MessagePurpose } from '../../src/platform/db/schema.js';
import { NIGHT_LA, NOON_LA, gateFixture, settings } from './gate-fixture.js';

/**
 * The gate's edges, case by case, with exact decisions: which opt-out sources
 * a STOP confirmation may answer, that only an unsubscribed channel's own
 * source counts, what each reason says, and the boundaries of the frequency
 * cap and the override. Complements gate.unit.test.ts (same in-memory
 * SQLite, fast).
 */

const g = gateFixture('gate-mutation', '+1415556', 'm');
const { lead, ask, suppress, sentAutomated, leadWrote } = g;

const OPTED_OUT = (channel: string) => ({
  kind: 'blocked',
  code: 'OPTED_OUT',
  reason: `lead is unsubscribed from ${channel}`,
});

describe('the STOP confirmation', () => {
  it("answers exactly the lead's own text opt-outs (keyword, phrase, message), on sms and voice, at any hour as a prompt reply", async () => {
    for (const source of ['keyword', 'phrase', 'message']) {
      for (const channel of ['sms', 'voice'] as const) {
        const l = lead({ [`${channel}_status`]: 'unsubscribed', [`${channel}_opt_out_source`]: source });
        const stop = await leadWrote(l, NIGHT_LA, 'STOP');
        expect(
          await ask({ lead: l, channel, purpose: 'stop_confirmation', now: NIGHT_LA, inReplyTo: stop }),
          `${source} ${channel}`,
        ).toEqual({ kind: 'allowed' });
      }
    }
  });

  it("answers no other opt-out, not even the agent's (ai), nor an opt-out with no source recorded", async () => {
    for (const source of ['ai', 'api', 'bounce', 'link', 'complaint', 'voice', 'dnc', 'unknown', '', null]) {
      const l = lead({ sms_status: 'unsubscribed', sms_opt_out_source: source });
      expect(await ask({ lead: l, purpose: 'stop_confirmation' }), String(source)).toEqual(OPTED_OUT('sms'));
    }
  });

  it("reads the source of the channel it is sent on, not another channel's", async () => {
    const l = lead({
      sms_status: 'unsubscribed',
      sms_opt_out_source: 'api',
      voice_status: 'unsubscribed',
      voice_opt_out_source: 'keyword',
    });
    expect(await ask({ lead: l, channel: 'sms', purpose: 'stop_confirmation' })).toEqual(OPTED_OUT('sms'));
    expect(await ask({ lead: l, channel: 'voice', purpose: 'stop_confirmation' })).toEqual({ kind: 'allowed' });
  });

  it('passes an address suppression only for a lead whose own channel is unsubscribed by its own STOP', async () => {
    // Subscribed on the lead (a leftover source from an older opt-out) but the number is suppressed: the suppression holds.
    const leftover = lead({ sms_status: 'subscribed', sms_opt_out_source: 'keyword' });
    await suppress('sms', leftover.phone!);
    const blocked = { kind: 'blocked', code: 'OPTED_OUT', reason: 'the number opted out of sms' };
    expect(await ask({ lead: leftover, purpose: 'stop_confirmation' })).toEqual(blocked);
    expect(await ask({ lead: leftover, purpose: 'conversation' })).toEqual(blocked);
    expect(await ask({ lead: leftover, purpose: 'compliance' })).toEqual(blocked);
    // The lead's own STOP (unsubscribed, keyword) with the number suppressed too: the one confirmation goes.
    const stopped = lead({ sms_status: 'unsubscribed', sms_opt_out_source: 'keyword' });
    await suppress('sms', stopped.phone!);
    expect(await ask({ lead: stopped, purpose: 'stop_confirmation' })).toEqual({ kind: 'allowed' });
    expect(await ask({ lead: stopped, purpose: 'conversation', sendWhenOff: true })).toEqual(OPTED_OUT('sms'));
  });

  it("is the only purpose that passes the lead's own STOP", async () => {
    const stopped = lead({ sms_status: 'unsubscribed', sms_opt_out_source: 'keyword' });
    for (const purpose of ['conversation', 'compliance'] as MessagePurpose[]) {
      expect(await ask({ lead: stopped, purpose, sendWhenOff: true, overrideBusinessHours: true }), purpose).toEqual(
        OPTED_OUT('sms'),
      );
    }
  });
});

describe('addresses, suppressions and DNC', () => {
  it('names what is missing for each channel', async () => {
    expect(await ask({ lead: lead({ phone: null }), channel: 'sms' })).toEqual({
      kind: 'blocked',
      code: 'NO_ADDRESS',
      reason: 'lead has no phone',
    });
    expect(await ask({ lead: lead({ phone: null }), channel: 'voice' })).toEqual({
      kind: 'blocked',
      code: 'NO_ADDRESS',
      reason: 'lead has no phone',
    });
    expect(await ask({ lead: lead({ email: null }), channel: 'email' })).toEqual({
      kind: 'blocked',
      code: 'NO_ADDRESS',
      reason: 'lead has no email',
    });
    expect(await ask({ lead: lead({ email: null }), channel: 'sms' })).toEqual({ kind: 'allowed' });
    expect(await ask({ lead: lead({ phone: null }), channel: 'email' })).toEqual({ kind: 'allowed' });
  });

  it("looks each channel's suppression up by that channel's address", async () => {
    const l = lead();
    await suppress('voice', l.phone!, 'voice');
    expect(await ask({ lead: l, channel: 'voice' })).toEqual({
      kind: 'blocked',
      code: 'OPTED_OUT',
      reason: 'the number opted out of voice',
    });
    expect(await ask({ lead: l, channel: 'sms' })).toEqual({ kind: 'allowed' });
    expect(await ask({ lead: l, channel: 'email' })).toEqual({ kind: 'allowed' });
    const e = lead();
    await suppress('email', e.email!, 'link');
    expect(await ask({ lead: e, channel: 'email' })).toEqual({
      kind: 'blocked',
      code: 'OPTED_OUT',
      reason: 'the address opted out of email',
    });
    expect(await ask({ lead: e, channel: 'sms' })).toEqual({ kind: 'allowed' });
  });

  it("checks DNC for the lead's own number on sms and voice, even for a compliance reply, and never for email", async () => {
    const l = lead();
    await addToDnc(g.db, g.org, { phone: l.phone!, source: 'api', created_at: new Date().toISOString() });
    const dnc = { kind: 'blocked', code: 'DNC', reason: 'phone is on the Do Not Contact list' };
    expect(await ask({ lead: l, channel: 'sms', purpose: 'compliance' })).toEqual(dnc);
    expect(await ask({ lead: l, channel: 'voice', purpose: 'conversation' })).toEqual(dnc);
    expect(await ask({ lead: l, channel: 'email' })).toEqual({ kind: 'allowed' });
    // The DNC list is a list of numbers: email is never looked up in it, whatever it holds.
    const e = lead();
    await addToDnc(g.db, g.org, { phone: e.email!, source: 'api', created_at: new Date().toISOString() });
    expect(await ask({ lead: e, channel: 'email' })).toEqual({ kind: 'allowed' });
    expect(await ask({ lead: e, channel: 'sms' })).toEqual({ kind: 'allowed' });
  });
});

describe('the conversation rules', () => {
  it('AI off blocks a conversation send unless sendWhenOff; compliance and STOP confirmations skip it', async () => {
    const off = lead({ is_ai_on: 0 });
    const aiOff = { kind: 'blocked', code: 'AI_OFF', reason: 'AI is off for this lead' };
    expect(await ask({ lead: off })).toEqual(aiOff);
    expect(await ask({ lead: off, sendWhenOff: true })).toEqual({ kind: 'allowed' });
    expect(await ask({ lead: off, purpose: 'compliance' })).toEqual({ kind: 'allowed' });
    expect(await ask({ lead: lead({ is_ai_on: 1 }), sendWhenOff: true })).toEqual({ kind: 'allowed' });
    expect(await ask({ lead: lead({ is_ai_on: 1 }), sendWhenOff: false })).toEqual({ kind: 'allowed' });
  });

  it('the cap counts automated sends of the last 24 hours: one under the cap passes, at the cap it blocks', async () => {
    const cap = settings({ frequencyCap: { maxAutomatedPerDay: 3 } });
    const l = lead();
    await sentAutomated(l, 2, new Date(NOON_LA.getTime() - 60_000));
    expect(await ask({ lead: l, automated: true, settings: cap })).toEqual({ kind: 'allowed' });
    await sentAutomated(l, 1, new Date(NOON_LA.getTime() - 24 * 3_600_000 + 60_000)); // 23:59 ago: inside
    expect(await ask({ lead: l, automated: true, settings: cap })).toEqual({
      kind: 'blocked',
      code: 'FREQUENCY_CAP',
      reason: '3 automated messages and calls in the last 24 hours (cap 3)',
    });
    // Over the cap says how many.
    await sentAutomated(l, 1, NOON_LA);
    expect(await ask({ lead: l, automated: true, settings: cap })).toEqual({
      kind: 'blocked',
      code: 'FREQUENCY_CAP',
      reason: '4 automated messages and calls in the last 24 hours (cap 3)',
    });
    // Not automated, or no cap: not counted.
    expect(await ask({ lead: l, automated: false, settings: cap })).toEqual({ kind: 'allowed' });
    expect(await ask({ lead: l, automated: true })).toEqual({ kind: 'allowed' });
    // 24 h 1 min ago is outside the window; a cap of 0 blocks every automated send.
    const old = lead();
    await sentAutomated(old, 3, new Date(NOON_LA.getTime() - 24 * 3_600_000 - 60_000));
    expect(await ask({ lead: old, automated: true, settings: cap })).toEqual({ kind: 'allowed' });
    expect(
      await ask({ lead: lead(), automated: true, settings: settings({ frequencyCap: { maxAutomatedPerDay: 0 } }) }),
    ).toEqual({
      kind: 'blocked',
      code: 'FREQUENCY_CAP',
      reason: '0 automated messages and calls in the last 24 hours (cap 0)',
    });
  });

  it("waits for the window, with its opening and reason; the override lifts only the organization's hours", async () => {
    const short = settings({ contactHours: { start: '13:00', end: '14:00' } });
    expect(await ask({ lead: lead(), settings: short })).toEqual({
      kind: 'wait',
      code: 'CONTACT_HOURS',
      until: new Date('2026-06-10T20:00:00Z'),
      reason: 'outside contact hours 13:00-14:00 America/Los_Angeles',
    });
    expect(await ask({ lead: lead(), settings: short, overrideBusinessHours: false })).toMatchObject({
      kind: 'wait',
      code: 'CONTACT_HOURS',
    });
    expect(await ask({ lead: lead(), settings: short, overrideBusinessHours: true })).toEqual({ kind: 'allowed' });
    expect(await ask({ lead: lead(), now: NIGHT_LA, overrideBusinessHours: true })).toEqual({
      kind: 'wait',
      code: 'CONTACT_HOURS',
      until: new Date('2026-06-10T15:00:00Z'),
      reason: 'outside the legal window 08:00-21:00 America/Los_Angeles',
    });
  });

  it('asks the external check only when one is configured and not yet asked, and follows its verdict', async () => {
    const external = settings({
      externalCheck: { url: 'https://x.example', secret: 's'.repeat(20), timeoutMs: 1000, failureMode: 'closed' },
    });
    expect(await ask({ lead: lead(), settings: external })).toEqual({ kind: 'ask_external' });
    expect(await ask({ lead: lead(), settings: external, external: { allowed: true, reason: 'ok' } })).toEqual({
      kind: 'allowed',
    });
    expect(await ask({ lead: lead(), settings: external, external: { allowed: false, reason: 'not today' } })).toEqual({
      kind: 'blocked',
      code: 'EXTERNAL_CHECK',
      reason: 'not today',
    });
    expect(await ask({ lead: lead() })).toEqual({ kind: 'allowed' });
    expect(await ask({ lead: lead(), external: { allowed: false, reason: 'no check configured' } })).toEqual({
      kind: 'allowed',
    });
    expect(await ask({ lead: lead(), settings: external, purpose: 'compliance' })).toEqual({ kind: 'allowed' });
  });
});
