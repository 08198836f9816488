import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * A fake Cal.com API v2 on 127.0.0.1, speaking the documented shapes:
 * `GET /v2/slots` (cal-api-version 2024-09-04) answers
 * `{status: "success", data: {"YYYY-MM-DD": [{start}]}}`; `POST /v2/bookings`,
 * `POST /v2/bookings/{uid}/reschedule` and `.../cancel` (cal-api-version
 * 2024-08-13) answer `{status: "success", data: {uid, start, end, ...}}`. A
 * slot booked already answers 409 with `{status: "error", error: {message}}`.
 * The bearer key and the version headers are checked.
 */

export interface CalRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: any;
}

export interface FakeCalcom {
  url: string;
  key: string;
  requests: CalRequest[];
  /** The slots the event type offers (ISO starts, UTC); booked ones are not answered. */
  setSlots(starts: string[], durationMinutes?: number): void;
  bookings: Map<string, { uid: string; start: string; end: string; status: 'accepted' | 'cancelled'; attendee: any }>;
  close(): Promise<void>;
}

const SLOTS_VERSION = '2024-09-04';
const BOOKINGS_VERSION = '2024-08-13';

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

export async function startFakeCalcom(key = 'cal_test_key_0123456789'): Promise<FakeCalcom> {
  const requests: CalRequest[] = [];
  const bookings: FakeCalcom['bookings'] = new Map();
  let slots: string[] = [];
  let duration = 30;
  const sockets = new Set<Socket>();
  const taken = (start: string) => [...bookings.values()].some((b) => b.status === 'accepted' && b.start === start);

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const body = raw ? JSON.parse(raw) : undefined;
      const url = new URL(req.url ?? '/', 'http://x');
      requests.push({ method: req.method ?? '', path: url.pathname + url.search, headers: req.headers, body });
      if (req.headers.authorization !== `Bearer ${key}`)
        return send(res, 401, { status: 'error', error: { message: 'Invalid API key' } });
      const version = req.headers['cal-api-version'];
      if (req.method === 'GET' && url.pathname === '/v2/slots') {
        if (version !== SLOTS_VERSION)
          return send(res, 400, { status: 'error', error: { message: `cal-api-version ${SLOTS_VERSION} required` } });
        const from = new Date(url.searchParams.get('start') ?? '');
        const to = new Date(url.searchParams.get('end') ?? '');
        if (!url.searchParams.get('eventTypeId') || Number.isNaN(from.getTime()) || Number.isNaN(to.getTime()))
          return send(res, 400, { status: 'error', error: { message: 'eventTypeId, start and end are required' } });
        const data: Record<string, { start: string }[]> = {};
        for (const s of slots) {
          const at = new Date(s);
          if (at < from || at > to || taken(s)) continue;
          (data[s.slice(0, 10)] ??= []).push({ start: s });
        }
        return send(res, 200, { status: 'success', data });
      }
      if (version !== BOOKINGS_VERSION)
        return send(res, 400, { status: 'error', error: { message: `cal-api-version ${BOOKINGS_VERSION} required` } });
      const book = (start: string, attendee: unknown) => {
        const uid = randomUUID();
        const end = new Date(new Date(start).getTime() + duration * 60_000).toISOString();
        const b = { uid, start, end, status: 'accepted' as const, attendee };
        bookings.set(uid, b);
        return {
          id: bookings.size,
          uid,
          title: 'Meeting',
          status: 'accepted',
          start,
          end,
          duration,
          eventTypeId: 1,
          attendees: [attendee],
        };
      };
      if (req.method === 'POST' && url.pathname === '/v2/bookings') {
        const start = new Date(body?.start).toISOString();
        if (!body?.eventTypeId || !body?.attendee?.email || !body?.attendee?.timeZone)
          return send(res, 400, {
            status: 'error',
            error: { message: 'eventTypeId and attendee {name, email, timeZone} are required' },
          });
        if (taken(start))
          return send(res, 409, {
            status: 'error',
            error: { message: 'User either already has booking at this time or is not available' },
          });
        return send(res, 201, { status: 'success', data: book(start, body.attendee) });
      }
      const m = /^\/v2\/bookings\/([^/]+)\/(reschedule|cancel)$/.exec(url.pathname);
      const existing = m ? bookings.get(decodeURIComponent(m[1]!)) : undefined;
      if (req.method === 'POST' && m && existing) {
        if (m[2] === 'cancel') {
          existing.status = 'cancelled';
          return send(res, 200, {
            status: 'success',
            data: { uid: existing.uid, start: existing.start, end: existing.end, status: 'cancelled' },
          });
        }
        const start = new Date(body?.start).toISOString();
        if (taken(start))
          return send(res, 409, {
            status: 'error',
            error: { message: 'User either already has booking at this time or is not available' },
          });
        existing.status = 'cancelled';
        return send(res, 201, {
          status: 'success',
          data: { ...book(start, existing.attendee), rescheduledFromUid: existing.uid },
        });
      }
      return send(res, 404, { status: 'error', error: { message: 'Not found' } });
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    key,
    requests,
    bookings,
    setSlots: (starts, minutes = 30) => {
      slots = starts;
      duration = minutes;
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
