import { nextLocalClock } from './contact-window.js';

/** Minutes since local midnight of `at` in an IANA zone. */
export function localMinutes(at: Date, timeZone: string): number {
  const parts = new Intl.DateTimeFormat('en-GB', {
    timeZone,
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(at);
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
 * The next instant the window opens: the first instant after `at` at which
 * the local clock reads `start`, or, on a day daylight saving skips that
 * time, the instant the clock jumps past it (see contact-window.ts).
 */
export function nextWindowStart(at: Date, timeZone: string, window: ContactWindow): Date {
  return new Date(nextLocalClock(at.getTime(), timeZone, toMinutes(window.start)));
}
