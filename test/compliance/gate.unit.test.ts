import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addToDnc } from '../../src/suppression-records/dnc.repository.js';
import type { MessagePurpose } from '../../src/platform/db/schema.js';
import { suppressQuery } from '../../src/suppression-records/suppressions.repository.js';
import { NIGHT_LA, NOON_LA, gateFixture, settings } from './gate-fixture.js';

/**
 * The gate's rules, one by one and in combination, against an in-memory
 * database (fast enough for a property test of hundreds of cases and for
 * mutation testing). The HTTP suites (consent, gate-model) prove the same
 * gate is what every send passes through.
 */

const g = gateFixture('gate-unit', '+1415555', 'u');
const { lead, ask, sentAutomated, dialled, digests, leadWrote } = g;
const MINUTE = 60_000;

describe('the compliance gate, rule by rule', () => {
  it('allows an ordinary send inside the hours', async () => {
    expect(await ask({ lead: lead() })).toEqual({ kind: 'allowed' });
  });

  it('refuses a channel the lead cannot receive, naming what is missing', async () => {
    expect(await ask({ lead: lead({ email: null }), channel: 'email' })).toEqual({
      kind: 'blocked',
      code: 'NO_ADDRESS',
      reason: 'lead has no email',
    });
    expect(await ask({ lead: lead({ phone: null }), channel: 'voice' })).toEqual({
      kind: 'blocked',
      code: 'NO_ADDRESS',
      reason: 'lead has no phone',
    });
  });

  it('refuses an opted-out channel, on the lead or for the address, whatever the flags', async () => {
    const out = lead({ voice_status: 'unsubscribed', voice_opt_out_source: 'api' });
    expect(await ask({ lead: out, channel: 'voice', sendWhenOff: true, overrideBusinessHours: true })).toEqual({
      kind: 'blocked',
      code: 'OPTED_OUT',
      reason: 'lead is unsubscribed from voice',
    });
    expect(await ask({ lead: out, channel: 'sms' })).toEqual({ kind: 'allowed' });
    const byAddress = lead();
    await suppressQuery(
      g.db,
      g.org,
      [{ channel: 'email', digest: digests.keyed(byAddress.email!), source: 'link' }],
      new Date().toISOString(),
    ).execute();
    expect(await ask({ lead: byAddress, channel: 'email' })).toEqual({
      kind: 'blocked',
      code: 'OPTED_OUT',
      reason: 'the address opted out of email',
    });
    expect(await ask({ lead: byAddress, channel: 'sms' })).toEqual({ kind: 'allowed' });
    const byNumber = lead();
    await suppressQuery(
      g.db,
      g.org,
      [{ channel: 'sms', digest: digests.keyed(byNumber.phone!), source: 'keyword' }],
      new Date().toISOString(),
    ).execute();
    expect(await ask({ lead: byNumber, channel: 'sms' })).toEqual({
      kind: 'blocked',
      code: 'OPTED_OUT',
      reason: 'the number opted out of sms',
    });
    expect(await ask({ lead: byNumber, channel: 'voice' })).toEqual({ kind: 'allowed' });
  });

  it('a legacy (unkeyed) suppression of an address still holds', async () => {
    const l = lead();
    await g.db
      .insertInto('suppressions')
      .values({
        organization_id: g.org,
        channel: 'sms',
        address_digest: digests.legacy(l.phone!),
        source: 'api',
        created_at: new Date().toISOString(),
        digest_kind: 'sha256',
      })
      .execute();
    expect(await ask({ lead: l })).toMatchObject({ kind: 'blocked', code: 'OPTED_OUT' });
  });

  it("lets only the STOP confirmation past the lead's own text opt-out, and never past DNC", async () => {
    const stopped = lead({ sms_status: 'unsubscribed', sms_opt_out_source: 'keyword' });
    // At night only as a prompt reply to the lead's STOP (the legal floor holds it otherwise).
    const stop = await leadWrote(stopped, new Date(NIGHT_LA.getTime() - MINUTE), 'STOP');
    expect(await ask({ lead: stopped, purpose: 'stop_confirmation', now: NIGHT_LA, inReplyTo: stop })).toEqual({
      kind: 'allowed',
    });
    expect(await ask({ lead: stopped, purpose: 'stop_confirmation', now: NIGHT_LA })).toMatchObject({
      kind: 'wait',
      code: 'CONTACT_HOURS',
      until: new Date('2026-06-10T15:00:00Z'),
    });
    expect(
      await ask({
        lead: lead({ sms_status: 'unsubscribed', sms_opt_out_source: 'message' }),
        purpose: 'stop_confirmation',
      }),
    ).toEqual({ kind: 'allowed' });
    expect(await ask({ lead: stopped, purpose: 'compliance' })).toMatchObject({ kind: 'blocked', code: 'OPTED_OUT' });
    expect(
      await ask({
        lead: lead({ sms_status: 'unsubscribed', sms_opt_out_source: 'api' }),
        purpose: 'stop_confirmation',
      }),
    ).toMatchObject({ kind: 'blocked', code: 'OPTED_OUT' });
    expect(
      await ask({
        lead: lead({ sms_status: 'unsubscribed', sms_opt_out_source: 'dnc' }),
        purpose: 'stop_confirmation',
      }),
    ).toMatchObject({ kind: 'blocked', code: 'OPTED_OUT' });
    await addToDnc(g.db, g.org, { phone: stopped.phone!, source: 'api', created_at: new Date().toISOString() });
    expect(await ask({ lead: stopped, purpose: 'stop_confirmation' })).toMatchObject({ kind: 'blocked', code: 'DNC' });
  });

  it('refuses sms and voice to a number on DNC, not email', async () => {
    const l = lead();
    await addToDnc(g.db, g.org, { phone: l.phone!, source: 'api', created_at: new Date().toISOString() });
    for (const channel of ['sms', 'voice'] as const) {
      expect(await ask({ lead: l, channel, sendWhenOff: true, purpose: 'compliance' })).toEqual({
        kind: 'blocked',
        code: 'DNC',
        reason: 'phone is on the Do Not Contact list',
      });
    }
    expect(await ask({ lead: l, channel: 'email' })).toEqual({ kind: 'allowed' });
  });

  it("compliance replies skip the AI, the cap, the organization's hours and the external check; the legal floor holds them but within the reply window", async () => {
    const l = lead({ is_ai_on: 0 });
    const strict = settings({
      contactHours: { start: '13:00', end: '14:00' },
      frequencyCap: { maxAutomatedPerDay: 1 },
      externalCheck: { url: 'https://x.example', secret: 's'.repeat(20), timeoutMs: 1000, failureMode: 'closed' },
    });
    await sentAutomated(l, 3, NOON_LA);
    expect(await ask({ lead: l, purpose: 'compliance', automated: true, settings: strict })).toEqual({
      kind: 'allowed',
    });
    const help = await leadWrote(l, new Date(NIGHT_LA.getTime() - 15 * MINUTE), 'HELP');
    expect(
      await ask({ lead: l, purpose: 'compliance', automated: true, now: NIGHT_LA, settings: strict, inReplyTo: help }),
    ).toEqual({ kind: 'allowed' });
    expect(
      await ask({
        lead: l,
        purpose: 'compliance',
        automated: true,
        now: new Date(NIGHT_LA.getTime() + 1),
        settings: strict,
        inReplyTo: help,
      }),
    ).toEqual({
      kind: 'wait',
      code: 'CONTACT_HOURS',
      until: new Date('2026-06-10T15:00:00Z'),
      reason: 'outside the legal window 08:00-21:00 America/Los_Angeles',
    });
    expect(
      await ask({ lead: l, purpose: 'conversation', automated: true, now: NIGHT_LA, settings: strict }),
    ).toMatchObject({ code: 'AI_OFF' });
  });

  it('refuses an address a provider called unreachable on that channel, until the address changes', async () => {
    const base = lead();
    const marked = lead({
      phone: base.phone,
      email: base.email,
      sms_unreachable_digest: digests.keyed(base.phone!),
      sms_unreachable_code: '30006',
      email_unreachable_digest: digests.keyed(base.email!),
      email_unreachable_code: null,
    });
    expect(await ask({ lead: marked, channel: 'sms', sendWhenOff: true, overrideBusinessHours: true })).toEqual({
      kind: 'blocked',
      code: 'UNREACHABLE',
      reason: "the number cannot receive sms (30006); it is tried again once the lead's phone changes",
    });
    expect(await ask({ lead: marked, channel: 'email' })).toEqual({
      kind: 'blocked',
      code: 'UNREACHABLE',
      reason: "the address cannot receive email (provider error); it is tried again once the lead's email changes",
    });
    // Marked on sms only: the same number still takes a call.
    expect(await ask({ lead: marked, channel: 'voice' })).toEqual({ kind: 'allowed' });
    // A new number (the mark names the old one) and no mark at all are both sendable.
    const moved = lead({ sms_unreachable_digest: digests.keyed(base.phone!), sms_unreachable_code: '30006' });
    expect(await ask({ lead: moved, channel: 'sms' })).toEqual({ kind: 'allowed' });
    expect(await ask({ lead: base, channel: 'sms' })).toEqual({ kind: 'allowed' });
  });

  it('refuses while the AI is off unless the send asked sendWhenOff', async () => {
    const l = lead({ is_ai_on: 0 });
    expect(await ask({ lead: l })).toEqual({ kind: 'blocked', code: 'AI_OFF', reason: 'AI is off for this lead' });
    expect(await ask({ lead: l, sendWhenOff: true })).toEqual({ kind: 'allowed' });
  });

  it('caps automated messages per rolling 24 hours; human sends and older messages do not count', async () => {
    const l = lead();
    const cap = settings({ frequencyCap: { maxAutomatedPerDay: 2 } });
    await sentAutomated(l, 1, NOON_LA);
    await sentAutomated(l, 5, new Date(NOON_LA.getTime() - 25 * 3_600_000));
    expect(await ask({ lead: l, automated: true, settings: cap })).toEqual({ kind: 'allowed' });
    await sentAutomated(l, 1, new Date(NOON_LA.getTime() - 23 * 3_600_000));
    expect(await ask({ lead: l, automated: true, settings: cap })).toEqual({
      kind: 'blocked',
      code: 'FREQUENCY_CAP',
      reason: '2 automated messages and calls in the last 24 hours (cap 2)',
    });
    expect(await ask({ lead: l, automated: false, settings: cap })).toEqual({ kind: 'allowed' });
    expect(await ask({ lead: l, automated: true })).toEqual({ kind: 'allowed' });
  });

  it("counts the AI's calls with its messages, on every channel, and an opening call once", async () => {
    const l = lead();
    const cap = settings({ frequencyCap: { maxAutomatedPerDay: 2 } });
    await dialled(l, 1, NOON_LA);
    await dialled(l, 3, new Date(NOON_LA.getTime() - 25 * 3_600_000));
    expect(await ask({ lead: l, automated: true, settings: cap })).toEqual({ kind: 'allowed' });
    // A call that speaks an opening message is that message's contact: with its message, one contact.
    await sentAutomated(l, 1, NOON_LA);
    const opening = (
      await g.db.selectFrom('messages').select('id').where('lead_id', '=', l.id).executeTakeFirstOrThrow()
    ).id;
    await dialled(l, 1, NOON_LA, opening);
    for (const channel of ['sms', 'voice', 'email'] as const)
      expect(await ask({ lead: l, channel, automated: true, settings: cap })).toEqual({
        kind: 'blocked',
        code: 'FREQUENCY_CAP',
        reason: '2 automated messages and calls in the last 24 hours (cap 2)',
      });
    expect(await ask({ lead: l, automated: false, settings: cap })).toEqual({ kind: 'allowed' });
    // Past the cap the reason still counts every contact.
    await dialled(l, 1, NOON_LA);
    expect(await ask({ lead: l, automated: true, settings: cap })).toMatchObject({
      reason: '3 automated messages and calls in the last 24 hours (cap 2)',
    });
  });

  it('waits outside the hours where the lead is, until the window opens', async () => {
    expect(await ask({ lead: lead(), now: NIGHT_LA })).toEqual({
      kind: 'wait',
      code: 'CONTACT_HOURS',
      until: new Date('2026-06-10T15:00:00Z'),
      reason: 'outside contact hours 08:00-21:00 America/Los_Angeles',
    });
    // No zone of its own: the number's (+1 415, Los Angeles) before the organization's (New York).
    expect(await ask({ lead: lead({ time_zone: null }), now: new Date('2026-06-10T13:00:00Z') })).toMatchObject({
      kind: 'wait',
      until: new Date('2026-06-10T15:00:00Z'),
    });
    // overrideBusinessHours lifts the organization's hours, not the legal 08:00-21:00.
    const short = settings({ contactHours: { start: '13:00', end: '14:00' } });
    expect(await ask({ lead: lead(), settings: short, overrideBusinessHours: true })).toEqual({ kind: 'allowed' });
    expect(await ask({ lead: lead(), settings: short })).toMatchObject({ kind: 'wait', code: 'CONTACT_HOURS' });
    expect(await ask({ lead: lead(), now: NIGHT_LA, overrideBusinessHours: true })).toMatchObject({
      kind: 'wait',
      code: 'CONTACT_HOURS',
    });
  });

  it('asks the external check last, and follows its verdict', async () => {
    const external = settings({
      externalCheck: { url: 'https://x.example', secret: 's'.repeat(20), timeoutMs: 1000, failureMode: 'closed' },
    });
    expect(await ask({ lead: lead(), settings: external })).toEqual({ kind: 'ask_external' });
    expect(await ask({ lead: lead(), settings: external, now: NIGHT_LA })).toMatchObject({ kind: 'wait' });
    expect(await ask({ lead: lead({ is_ai_on: 0 }), settings: external })).toMatchObject({
      kind: 'blocked',
      code: 'AI_OFF',
    });
    expect(await ask({ lead: lead(), settings: external, external: { allowed: true, reason: 'approved' } })).toEqual({
      kind: 'allowed',
    });
    expect(await ask({ lead: lead(), settings: external, external: { allowed: false, reason: 'not today' } })).toEqual({
      kind: 'blocked',
      code: 'EXTERNAL_CHECK',
      reason: 'not today',
    });
    expect(await ask({ lead: lead(), external: { allowed: false, reason: 'ignored without a check' } })).toEqual({
      kind: 'allowed',
    });
  });
});

describe('the compliance gate against an oracle', () => {
  it('decides like the rules read in order, for any lead state, purpose, flags and time', async () => {
    const source = fc.constantFrom(null, 'api', 'keyword', 'message', 'link', 'dnc', 'bounce');
    const channelState = fc.record({ on: fc.boolean(), source });
    const arbitrary = fc.record({
      sms: channelState,
      voice: channelState,
      email: channelState,
      hasPhone: fc.boolean(),
      hasEmail: fc.boolean(),
      aiOn: fc.boolean(),
      dnc: fc.boolean(),
      channel: fc.constantFrom('sms' as const, 'voice' as const, 'email' as const),
      purpose: fc.constantFrom<MessagePurpose>('conversation', 'compliance', 'stop_confirmation'),
      sendWhenOff: fc.boolean(),
      night: fc.boolean(),
      reply: fc.boolean(),
    });
    await fc.assert(
      fc.asyncProperty(arbitrary, async (c) => {
        const l = lead({
          is_ai_on: c.aiOn ? 1 : 0,
          sms_status: c.sms.on ? 'subscribed' : 'unsubscribed',
          sms_opt_out_source: c.sms.on ? null : (c.sms.source ?? 'api'),
          voice_status: c.voice.on ? 'subscribed' : 'unsubscribed',
          voice_opt_out_source: c.voice.on ? null : (c.voice.source ?? 'api'),
          email_status: c.email.on ? 'subscribed' : 'unsubscribed',
          email_opt_out_source: c.email.on ? null : (c.email.source ?? 'api'),
        });
        if (!c.hasPhone) l.phone = null;
        if (!c.hasEmail) l.email = null;
        if (c.dnc && l.phone)
          await addToDnc(g.db, g.org, { phone: l.phone, source: 'api', created_at: new Date().toISOString() });
        const now = c.night ? NIGHT_LA : NOON_LA;
        // A reply to the lead's message of a minute ago: inside the reply window.
        const inReplyTo = c.reply ? await leadWrote(l, new Date(now.getTime() - MINUTE)) : undefined;
        const got = await ask({
          lead: l,
          channel: c.channel,
          purpose: c.purpose,
          sendWhenOff: c.sendWhenOff,
          now,
          inReplyTo,
        });
        const state = c[c.channel];
        const reachable = c.channel === 'email' ? c.hasEmail : c.hasPhone;
        const src = state.on ? null : (state.source ?? 'api');
        let want: string;
        if (!reachable) want = 'NO_ADDRESS';
        else if (!state.on && !(c.purpose === 'stop_confirmation' && ['keyword', 'message', 'phrase'].includes(src!)))
          want = 'OPTED_OUT';
        else if (c.channel !== 'email' && c.dnc) want = 'DNC';
        // Compliance replies: the legal floor only, lifted within the reply window.
        else if (c.purpose !== 'conversation') want = c.night && !c.reply ? 'CONTACT_HOURS' : 'allowed';
        else if (!c.aiOn && !c.sendWhenOff) want = 'AI_OFF';
        // Conversation: the organization's 08:00-21:00 hold a reply too (only the legal floor is lifted).
        else if (c.night) want = 'CONTACT_HOURS';
        else want = 'allowed';
        const code = got.kind === 'allowed' ? 'allowed' : got.kind === 'ask_external' ? 'ask' : got.code;
        expect(code, JSON.stringify(c)).toBe(want);
      }),
      { numRuns: 300, seed: 20261123 },
    );
  });
});
