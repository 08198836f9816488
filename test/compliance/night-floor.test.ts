import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { withinReplyWindow } from '../../src/compliance/gate.js';
import { zonesForLead } from '../../src/compliance/lead-zones.js';
import type { MessagePurpose } from '../../src/platform/db/schema.js';
import { gateFixture, settings } from './gate-fixture.js';

/**
 * The night floor, as a property of the gate itself: whatever the lead's zone,
 * the organization's hours (unlimited, 00:00-23:59, over midnight, overridden)
 * and the instant, no contact the organization starts is allowed outside
 * 08:00-21:00 where the lead is, and a reply to the lead's own message is
 * allowed outside it only within the reply window after that message. The
 * local clock is read here with Intl alone, independently of contact-window.ts.
 */

const g = gateFixture('night-floor', '+1415557', 'n');
const { lead, ask, leadWrote } = g;
const MINUTE = 60_000;

function localMinute(zone: string, t: number): number {
  const parts = new Intl.DateTimeFormat('en-GB', {
    timeZone: zone,
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(new Date(t));
  return (
    Number(parts.find((p) => p.type === 'hour')!.value) * 60 + Number(parts.find((p) => p.type === 'minute')!.value)
  );
}
const insideFloor = (zone: string, t: number): boolean => {
  const m = localMinute(zone, t);
  return m >= 8 * 60 && m < 21 * 60;
};
const hm = (s: string): number => Number(s.slice(0, 2)) * 60 + Number(s.slice(3, 5));
function insideOrganizationHours(zone: string, t: number, hours: { start: string; end: string }): boolean {
  const [s, e, m] = [hm(hours.start), hm(hours.end), localMinute(zone, t)];
  if (s === e) return true;
  return s < e ? m >= s && m < e : m >= s || m < e;
}

const ZONES = [
  'Europe/Madrid',
  'America/New_York',
  'America/Los_Angeles',
  'America/Chicago',
  'Asia/Tokyo',
  'Australia/Sydney',
  'Asia/Kolkata',
  'Pacific/Auckland',
  'UTC',
];
// A lead with no zone of its own is placed by its number: Madrid, Los Angeles (US-CA), Tokyo, Sydney; a number that places nowhere falls to the organization's zone.
const PHONES = ['+34612345678', '+14155557001', '+819012345678', '+61412345678', '+5215512345678'];
const clock = fc
  .tuple(fc.integer({ min: 0, max: 23 }), fc.constantFrom(0, 1, 30, 59))
  .map(([h, m]) => `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}`);
const hours = fc.oneof(
  fc.constant({ start: '00:00', end: '23:59' }),
  fc.constant({ start: '00:00', end: '00:00' }),
  fc.constant({ start: '22:00', end: '06:00' }),
  fc.record({ start: clock, end: clock }),
);
const scenario = fc.record({
  zone: fc.option(fc.constantFrom(...ZONES), { nil: null }),
  phone: fc.constantFrom(...PHONES),
  orgZone: fc.constantFrom(...ZONES),
  hours,
  regionalRules: fc.boolean(),
  override: fc.boolean(),
  purpose: fc.constantFrom<MessagePurpose>('conversation', 'compliance'),
  channel: fc.constantFrom('sms' as const, 'email' as const),
  now: fc.integer({ min: Date.parse('2026-01-01T00:00:00Z'), max: Date.parse('2027-12-31T00:00:00Z') }),
  // null: not a reply; else how long after the lead's message the gate is asked (some before it, many past the window).
  replyAfterMs: fc.option(fc.integer({ min: -5 * MINUTE, max: 90 * MINUTE }), { nil: null }),
  replyWindowMinutes: fc.oneof(fc.constant(15), fc.integer({ min: 0, max: 60 })),
});

describe('the night floor, for any lead zone, hours, instant and reply', () => {
  it('never allows a contact outside 08:00-21:00 where the lead is, but a reply within the reply window after the lead wrote', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (c) => {
        const l = lead({ time_zone: c.zone, phone: c.phone });
        const { zones } = await zonesForLead({ timeZone: c.zone, phone: c.phone }, c.orgZone);
        const s = settings({
          timeZone: c.orgZone,
          contactHours: c.hours,
          regionalRules: c.regionalRules,
          replyWindowMinutes: c.replyWindowMinutes,
        });
        const now = new Date(c.now);
        const inReplyTo = c.replyAfterMs === null ? undefined : await leadWrote(l, new Date(c.now - c.replyAfterMs));
        const got = await ask({
          lead: l,
          channel: c.channel,
          purpose: c.purpose,
          settings: s,
          now,
          overrideBusinessHours: c.override,
          inReplyTo,
        });
        const prompt =
          c.replyAfterMs !== null && c.replyAfterMs >= 0 && c.replyAfterMs <= c.replyWindowMinutes * MINUTE;
        const floor = zones.every((z) => insideFloor(z, c.now));
        const why = JSON.stringify({ ...c, zones, got });
        expect(got.kind === 'allowed' || got.kind === 'wait', why).toBe(true);
        // The floor: only a prompt reply goes outside it.
        if (got.kind === 'allowed' && !prompt) expect(floor, why).toBe(true);
        // A prompt reply is not held by the floor: a compliance reply goes at once; a conversation one whenever the organization's hours allow.
        const organization =
          c.override || c.purpose !== 'conversation' || zones.every((z) => insideOrganizationHours(z, c.now, c.hours));
        if (prompt && organization) expect(got.kind, why).toBe('allowed');
        // A held send names an opening later than now, inside the floor unless a prompt reply waits for the organization's hours alone.
        if (got.kind === 'wait') {
          expect(got.until.getTime(), why).toBeGreaterThan(c.now);
          if (!prompt && !got.reason.startsWith('no common contact window'))
            for (const z of zones) expect(insideFloor(z, got.until.getTime()), why).toBe(true);
        }
      }),
      { numRuns: Number(process.env.NIGHT_FLOOR_RUNS ?? 400), seed: 20261126 },
    );
  });

  it("counts the reply window from the lead's message, both ends included, never before it", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2 ** 40 }),
        fc.integer({ min: -3_600_000, max: 3_600_000 }),
        fc.integer({ min: 0, max: 60 }),
        (at, elapsed, minutes) => {
          expect(withinReplyWindow(new Date(at), new Date(at + elapsed), minutes)).toBe(
            elapsed >= 0 && elapsed <= minutes * MINUTE,
          );
        },
      ),
    );
    expect(withinReplyWindow(new Date(0), new Date(15 * MINUTE), 15)).toBe(true);
    expect(withinReplyWindow(new Date(0), new Date(15 * MINUTE + 1), 15)).toBe(false);
    expect(withinReplyWindow(new Date(MINUTE), new Date(MINUTE - 1), 15)).toBe(false);
  });

  it("holds a send naming another lead's message, or none that exists, like any other contact", async () => {
    const night = new Date('2026-06-10T21:09:00Z'); // 23:09 in Madrid
    const madrid = lead({ time_zone: 'Europe/Madrid' });
    const other = lead({ time_zone: 'Europe/Madrid' });
    const open = settings({ contactHours: { start: '00:00', end: '23:59' } });
    const theirs = await leadWrote(other, new Date(night.getTime() - MINUTE));
    expect(await ask({ lead: madrid, settings: open, now: night, inReplyTo: theirs })).toMatchObject({
      kind: 'wait',
      until: new Date('2026-06-11T06:00:00Z'),
    });
    const own = await leadWrote(madrid, new Date(night.getTime() - MINUTE));
    expect(await ask({ lead: madrid, settings: open, now: night, inReplyTo: own })).toEqual({ kind: 'allowed' });
    expect(await ask({ lead: madrid, settings: open, now: night, inReplyTo: 'no-such-message' })).toMatchObject({
      kind: 'wait',
    });
  });
});
