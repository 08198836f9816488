import type { Slot } from './slots.js';

/**
 * Cal.com's API v2 (cal.com or a self-hosted instance): the calls the
 * calendar adapter needs, with the `cal-api-version` each endpoint is
 * versioned by. Every failure throws a CalcomError; `taken` tells a slot
 * Cal.com will not book (it answers 409, or 400 naming availability) from
 * anything else (the caller answers 409 for the first, 502 for the rest).
 */

const SLOTS_VERSION = '2024-09-04';
const BOOKINGS_VERSION = '2024-08-13';
const TIMEOUT_MS = 10_000;

export interface CalcomConfig {
  baseUrl: string;
  apiKey: string;
  eventTypeId: number;
}

export class CalcomError extends Error {
  constructor(
    message: string,
    readonly taken: boolean,
  ) {
    super(message);
  }
}

interface Envelope<T> {
  status?: string;
  data?: T;
  error?: { message?: string };
}

async function call<T>(
  c: CalcomConfig,
  method: 'GET' | 'POST',
  path: string,
  version: string,
  body?: unknown,
): Promise<T> {
  let res: Response;
  try {
    res = await fetch(`${c.baseUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${c.apiKey}`,
        'cal-api-version': version,
        accept: 'application/json',
        ...(body ? { 'content-type': 'application/json' } : {}),
      },
      body: body ? JSON.stringify(body) : undefined,
      redirect: 'error',
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch (err) {
    const e = err as Error & { cause?: { code?: string } };
    throw new CalcomError(`Cal.com request failed: ${e.cause?.code ?? e.name}`, false);
  }
  const text = await res.text();
  let parsed: Envelope<T> | undefined;
  try {
    parsed = JSON.parse(text) as Envelope<T>;
  } catch {
    parsed = undefined;
  }
  if (!res.ok) {
    const message = parsed?.error?.message ?? `HTTP ${res.status}`;
    const taken = res.status === 409 || (res.status === 400 && /availab|already|booked|taken/i.test(message));
    throw new CalcomError(`Cal.com answered ${res.status}: ${message.slice(0, 200)}`, taken);
  }
  if (!parsed || parsed.data === undefined) throw new CalcomError('Cal.com answer has no data', false);
  return parsed.data;
}

/** GET /v2/slots: `{data: {"YYYY-MM-DD": [{start}]}}`, each start an ISO instant (with an offset). */
export async function calcomSlots(
  c: CalcomConfig,
  from: Date,
  to: Date,
  timeZone: string,
  durationMinutes: number,
): Promise<Slot[]> {
  const q = new URLSearchParams({
    eventTypeId: String(c.eventTypeId),
    start: from.toISOString(),
    end: to.toISOString(),
    timeZone,
  });
  const data = await call<Record<string, { start: string; end?: string }[]>>(
    c,
    'GET',
    `/v2/slots?${q.toString()}`,
    SLOTS_VERSION,
  );
  const out: Slot[] = [];
  for (const day of Object.keys(data).sort()) {
    for (const s of data[day] ?? []) {
      const start = new Date(s.start);
      if (Number.isNaN(start.getTime())) continue;
      const end = s.end ? new Date(s.end) : new Date(start.getTime() + durationMinutes * 60_000);
      out.push({ start: start.toISOString(), end: end.toISOString() });
    }
  }
  return out.sort((a, b) => a.start.localeCompare(b.start));
}

export interface CalcomBooking {
  uid: string;
  start: string;
  end: string;
}

function booking(data: unknown): CalcomBooking {
  const b = (Array.isArray(data) ? data[0] : data) as Partial<CalcomBooking> | undefined;
  if (!b?.uid || !b.start) throw new CalcomError('Cal.com booking answer has no uid', false);
  return {
    uid: b.uid,
    start: new Date(b.start).toISOString(),
    end: b.end ? new Date(b.end).toISOString() : new Date(b.start).toISOString(),
  };
}

export interface Attendee {
  name: string;
  email: string;
  timeZone: string;
  phoneNumber?: string;
  language?: string;
}

/** POST /v2/bookings. */
export async function calcomBook(
  c: CalcomConfig,
  start: Date,
  attendee: Attendee,
  notes: string | null,
  metadata: Record<string, string>,
): Promise<CalcomBooking> {
  const body = {
    eventTypeId: c.eventTypeId,
    start: start.toISOString(),
    attendee,
    ...(notes ? { bookingFieldsResponses: { notes } } : {}),
    metadata,
  };
  return booking(await call<unknown>(c, 'POST', '/v2/bookings', BOOKINGS_VERSION, body));
}

/** POST /v2/bookings/{uid}/reschedule: Cal.com answers the new booking (a new uid). */
export async function calcomReschedule(c: CalcomConfig, uid: string, start: Date): Promise<CalcomBooking> {
  return booking(
    await call<unknown>(c, 'POST', `/v2/bookings/${encodeURIComponent(uid)}/reschedule`, BOOKINGS_VERSION, {
      start: start.toISOString(),
      reschedulingReason: 'Rescheduled through Parley',
    }),
  );
}

/** POST /v2/bookings/{uid}/cancel. */
export async function calcomCancel(c: CalcomConfig, uid: string, reason: string): Promise<void> {
  await call<unknown>(c, 'POST', `/v2/bookings/${encodeURIComponent(uid)}/cancel`, BOOKINGS_VERSION, {
    cancellationReason: reason,
  });
}
