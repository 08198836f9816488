import { beforeEach } from 'vitest';
import type { Client } from './harness.js';
import type { TestClock } from './test-clock.js';

/**
 * Realistic contact hours for suites about compliance and adversarial behaviour, instead of a 24-hour
 * window: 8 am to 9 pm (the TCPA's hours), judged in the zone of the suites' numbers (`uniquePhone()`
 * gives +1 415: California), set explicitly rather than left to defaults. The suites move the server's
 * clock (`ts.clock`, test/support/test-clock.ts) to one of the instants below, so whether a send may go
 * out now is known, whatever the time of day the suite runs at.
 */
export const REALISTIC_HOURS = {
  timeZone: 'America/Los_Angeles',
  contactHours: { start: '08:00', end: '21:00' },
} as const;

// Instants inside / outside 08:00-21:00 in Los Angeles, New York and UTC alike, so the answer does not
// depend on which zone a lead's number is placed in.
/** Wednesday 2026-07-01, 12:00 in Los Angeles (15:00 in New York, 19:00 UTC). */
export const MIDDAY = new Date('2026-07-01T19:00:00Z');
/** Wednesday 2026-07-01, 23:00 in Los Angeles (02:00 in New York and 06:00 UTC on the 2nd). */
export const LATE_NIGHT = new Date('2026-07-02T06:00:00Z');
/** Thursday 2026-07-02, 08:00 in Los Angeles: the opening after LATE_NIGHT. */
export const NEXT_MORNING = new Date('2026-07-02T15:00:00Z');

/** Sets REALISTIC_HOURS on an organization (its key needs settings:write) and checks they were taken. */
export async function useRealisticHours(client: Client): Promise<void> {
  const res = await client.patch('/settings', REALISTIC_HOURS);
  if (
    res.status !== 200 ||
    res.body.timeZone !== REALISTIC_HOURS.timeZone ||
    res.body.contactHours?.start !== '08:00' ||
    res.body.contactHours?.end !== '21:00'
  ) {
    throw new Error(`PATCH /settings did not take realistic hours: ${res.status} ${JSON.stringify(res.body)}`);
  }
}

/**
 * Wednesday 2026-07-01, 09:00 in Los Angeles (12:00 in New York, 16:00 UTC, 18:00 in Madrid): inside the legal
 * 08:00-21:00 in every zone the suites place leads in, with hours to spare for clock moves.
 */
export const DAYTIME = new Date('2026-07-01T16:00:00Z');

/**
 * For suites that lift the organization's hours (`contactHours` 00:00-00:00) so sends go out whenever they
 * run: the legal floor (08:00-21:00 where the lead is) holds whatever the hours, so each test starts at
 * DAYTIME on the server's clock instead of whatever the wall clock says (a night run would see every
 * send wait). Call inside `describeEachDialect`.
 */
export function startEachTestInDaytime(ctx: () => { clock: TestClock }): void {
  beforeEach(() => ctx().clock.set(DAYTIME));
}

const hourIn = (zone: string, at: Date): number =>
  Number(new Intl.DateTimeFormat('en-US', { timeZone: zone, hour: 'numeric', hourCycle: 'h23' }).format(at));

/**
 * For suites whose server is a child process (it keeps real time: no TestClock to move): a zone where it is now
 * 09:00-17:59 by the wall clock, to give a lead as its `timeZone` with the organization's hours lifted, so the
 * legal 08:00-21:00 where the lead is holds at whatever hour the suite runs. The zones are at most three hours
 * apart all round the day.
 */
export function zoneInDaytimeNow(at = new Date()): { zone: string; hour: number } {
  const zones = [
    'Pacific/Honolulu',
    'America/Los_Angeles',
    'America/Chicago',
    'America/Sao_Paulo',
    'Atlantic/Azores',
    'Europe/Madrid',
    'Asia/Dubai',
    'Asia/Bangkok',
    'Asia/Tokyo',
    'Pacific/Auckland',
  ];
  const zone = zones.find((z) => hourIn(z, at) >= 9 && hourIn(z, at) <= 17);
  if (!zone) throw new Error(`no daytime zone at ${at.toISOString()}`);
  return { zone, hour: hourIn(zone, at) };
}
