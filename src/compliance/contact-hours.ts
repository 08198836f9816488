/** Minutes since local midnight of `at` in an IANA zone. */
export function localMinutes(at: Date, timeZone: string): number {
  const parts = new Intl.DateTimeFormat('en-GB', { timeZone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).formatToParts(at);
  const hour = Number(parts.find((p) => p.type === 'hour')?.value ?? 0);
  const minute = Number(parts.find((p) => p.type === 'minute')?.value ?? 0);
  return hour * 60 + minute;
}

const toMinutes = (hhmm: string): number => {
  const [h, m] = hhmm.split(':').map(Number);
  return (h ?? 0) * 60 + (m ?? 0);
};

export interface ContactWindow {
  start: string;
  end: string;
}

/** Inside [start, end) local time; a window whose end is before its start runs over midnight. */
export function insideWindow(at: Date, timeZone: string, window: ContactWindow): boolean {
  const m = localMinutes(at, timeZone);
  const start = toMinutes(window.start);
  const end = toMinutes(window.end);
  if (start === end) return true;
  return start < end ? m >= start && m < end : m >= start || m < end;
}

/**
 * The next instant the window opens. Computed by local-minute arithmetic, then
 * corrected once for a daylight-saving jump between now and then.
 */
export function nextWindowStart(at: Date, timeZone: string, window: ContactWindow): Date {
  const start = toMinutes(window.start);
  const delta = (start - localMinutes(at, timeZone) + 1440) % 1440;
  const base = new Date(Math.floor(at.getTime() / 60_000) * 60_000 + delta * 60_000);
  const drift = (start - localMinutes(base, timeZone) + 1440) % 1440;
  const corrected = drift === 0 ? base : new Date(base.getTime() + (drift > 720 ? drift - 1440 : drift) * 60_000);
  return corrected.getTime() > at.getTime() ? corrected : new Date(at.getTime() + 60_000);
}
