/**
 * Lead numbers in a place where it is daytime when the bench runs. Every
 * contact the organization starts waits for 08:00-21:00 where the lead is (the
 * night floor, which no setting lifts), so a bench whose leads all live in
 * California stalls at every opening when run after 05:00 UTC. The first
 * region whose local hour is 09:00-19:59 now is used for the whole run.
 */
const REGIONS = [
  { prefix: '+1415', zone: 'America/Los_Angeles', digits: 7, start: 5_000_000 },
  { prefix: '+1212', zone: 'America/New_York', digits: 7, start: 5_000_000 },
  { prefix: '+4420', zone: 'Europe/London', digits: 8, start: 30_000_000 },
  { prefix: '+813', zone: 'Asia/Tokyo', digits: 8, start: 50_000_000 },
  { prefix: '+612', zone: 'Australia/Sydney', digits: 8, start: 90_000_000 },
] as const;

const localHour = (zone: string, at: Date) =>
  Number(new Intl.DateTimeFormat('en-GB', { timeZone: zone, hour: '2-digit', hourCycle: 'h23' }).format(at));

export function daytimeRegion(at = new Date()): (typeof REGIONS)[number] {
  return REGIONS.find((r) => localHour(r.zone, at) >= 9 && localHour(r.zone, at) < 20) ?? REGIONS[0];
}

/** Distinct valid numbers in that region; each section its own `offset` (up to 1,000,000 numbers apart). */
export function daytimePhones(offset: number): () => string {
  const region = daytimeRegion();
  let n = 0;
  return () => `${region.prefix}${String(region.start + offset + n++).padStart(region.digits, '0')}`;
}
