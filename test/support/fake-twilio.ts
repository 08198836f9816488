import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { twilioSign } from './twilio-webhooks.js';

/** One request Twilio's REST API accepted (or was told to fail). */
export interface TwilioRequest {
  /** `CallUpdate`: a POST to Calls/{Sid}.json (new TwiML for a live call, or Status=completed). */
  resource: 'Messages' | 'Calls' | 'CallUpdate';
  params: Record<string, string>;
  status: number;
  /** The sid answered on success. */
  sid: string | null;
  /** When it arrived (epoch ms, this process's wall clock): pacing suites measure rates by it. */
  at: number;
}

/** One GET of the account's message list (reconciliation), its query and what was answered. */
export interface TwilioListRequest {
  params: Record<string, string>;
  status: number;
  /** How many messages the page held. */
  count: number;
  at: number;
}

interface Failure {
  match: (r: { resource: string; params: Record<string, string> }) => boolean;
  status: number;
  left: number;
  method: 'POST' | 'GET';
  /** Twilio's error code in the answer's body (20500 when not given). */
  code?: number;
}

/**
 * When a slow create takes effect: `on_arrival`, Twilio creates the message at
 * once and only its answer is slow (a client that dies meanwhile never hears
 * it, but the message exists); `after_delay`, Twilio creates it only after the
 * delay and only if the client is still connected (one that died meanwhile
 * never reached it).
 */
export type SlowAccept = 'on_arrival' | 'after_delay';

/** A Message resource as Twilio's list and create answers show it. */
interface MessageResource {
  sid: string;
  account_sid: string;
  to: string;
  from: string;
  body: string;
  status: string;
  direction: string;
  date_created: string;
  date_updated: string;
  date_sent: string;
  num_segments: string;
  api_version: string;
  uri: string;
  /** For sorting and filtering; not part of the JSON. */
  createdMs: number;
}

export interface FakeTwilio {
  /** Base URL to put in TWILIO_API_BASE_URL. */
  url: string;
  requests: TwilioRequest[];
  /** The accepted requests of one resource, optionally filtered. */
  accepted(
    resource: 'Messages' | 'Calls' | 'CallUpdate',
    where?: (p: Record<string, string>) => boolean,
  ): TwilioRequest[];
  /** The next `times` matching creates (POST; or GET lists with method 'GET') get `status` with a Twilio error body. */
  failNext(match: Failure['match'], status?: number, times?: number, method?: 'POST' | 'GET', code?: number): void;
  /** GETs of the message list, in order. */
  lists: TwilioListRequest[];
  /** Message creates answer after `ms` (0: at once again); `accept` says per create when it takes effect. */
  slowly(ms: number, accept?: (params: Record<string, string>) => SlowAccept): void;
  /** Creates that arrived and whose clients still wait for the answer. */
  inFlight(): number;
  /**
   * Twilio's own callbacks for the calls it accepted, sent to the server listening at `serverUrl` (Twilio
   * knows it by the public URL given in Calls.json; the fake reaches it here, and signs for the public URL).
   */
  callbacks(serverUrl: string): CallCallbacks;
  close(): Promise<void>;
}

/** Twilio's answer to a callback it sent: the status and the TwiML (or other body) the server answered. */
export interface CallbackAnswer {
  status: number;
  body: string;
}

/**
 * What Twilio posts about a call it placed, to the URLs its Calls.json gave: each form-encoded, signed with
 * X-Twilio-Signature over the URL exactly as given (query included) and the parameters, as Twilio does.
 */
export interface CallCallbacks {
  /** Asynchronous answering-machine detection decided: `AnsweredBy` to AsyncAmdStatusCallback. */
  amd(
    callSid: string,
    answeredBy: 'human' | 'machine_start' | 'machine_end_beep' | 'fax' | 'unknown',
  ): Promise<CallbackAnswer>;
  /** The call ended: `CallStatus` (and `CallDuration`, seconds) to StatusCallback. */
  status(
    callSid: string,
    callStatus: 'completed' | 'no-answer' | 'busy' | 'failed' | 'canceled',
    durationSeconds?: number,
  ): Promise<CallbackAnswer>;
}

const E164 = /^\+[1-9]\d{6,14}$/;

function error(res: ServerResponse, status: number, code: number, message: string): void {
  res
    .writeHead(status, { 'content-type': 'application/json' })
    .end(JSON.stringify({ code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status }));
}

const sid = (prefix: string) => prefix + randomBytes(16).toString('hex');

/** Twilio's dates: RFC 2822 in GMT, "Thu, 26 Nov 2026 21:43:06 +0000". */
const twilioDate = (ms: number) => new Date(ms).toUTCString().replace('GMT', '+0000');

/** A `DateSent` filter value (YYYY-MM-DD, or a full timestamp) as epoch ms of its start. */
const filterDay = (v: string) => Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(v) ? `${v}T00:00:00Z` : v);
const DAY_MS = 86_400_000;

/**
 * Twilio's list of Message resources: filters To, From, DateSent (a day),
 * `DateSent>` (on or after, what `DateSent>=...` in a URL is) and `DateSent<`
 * (on or before); newest first; PageSize (default 50, at most 1000) with
 * Page/PageToken, and next_page_uri a path with the same query and the next
 * page, or null on the last.
 */
function listPage(accountSid: string, all: MessageResource[], query: URLSearchParams) {
  const path = `/2010-04-01/Accounts/${accountSid}/Messages.json`;
  const to = query.get('To');
  const from = query.get('From');
  const on = query.get('DateSent');
  const after = query.get('DateSent>');
  const before = query.get('DateSent<');
  const sent = (m: MessageResource) => Date.parse(m.date_sent);
  const matching = all
    .filter((m) => (!to || m.to === to) && (!from || m.from === from))
    .filter(
      (m) =>
        (!on || (sent(m) >= filterDay(on) && sent(m) < filterDay(on) + DAY_MS)) &&
        (!after || sent(m) >= filterDay(after)) &&
        (!before || sent(m) < filterDay(before) + DAY_MS),
    )
    .sort((a, b) => b.createdMs - a.createdMs);
  const size = Math.min(1000, Math.max(1, Number(query.get('PageSize') ?? 50) || 50));
  const page = Math.max(0, Number(query.get('Page') ?? 0) || 0);
  const items = matching.slice(page * size, page * size + size);
  const uriOf = (n: number, token?: string) => {
    const q = new URLSearchParams(query);
    q.set('PageSize', String(size));
    q.set('Page', String(n));
    q.delete('PageToken');
    if (token) q.set('PageToken', token);
    return `${path}?${q.toString()}`;
  };
  const more = matching.length > (page + 1) * size;
  return {
    messages: items.map(({ createdMs: _, ...m }) => m),
    end: page * size + items.length - 1,
    first_page_uri: uriOf(0),
    next_page_uri: more ? uriOf(page + 1, `PA${items[items.length - 1]!.sid}`) : null,
    previous_page_uri: page > 0 ? uriOf(page - 1) : null,
    page,
    page_size: size,
    start: page * size,
    uri: uriOf(page, query.get('PageToken') ?? undefined),
  };
}

/**
 * Twilio's REST API (2010-04-01) as far as Parley uses it, on 127.0.0.1: basic
 * auth with the account SID and auth token, form-encoded parameters, the
 * required-field and format checks Twilio makes, and 201 with the resource.
 */
export async function startFakeTwilio(accountSid: string, authToken: string): Promise<FakeTwilio> {
  const requests: TwilioRequest[] = [];
  const lists: TwilioListRequest[] = [];
  const failures: Failure[] = [];
  const messages: MessageResource[] = [];
  let slowMs = 0;
  let slowAccept: (params: Record<string, string>) => SlowAccept = () => 'on_arrival';
  let pending = 0;

  const handle = async (req: IncomingMessage, res: ServerResponse, raw: string) => {
    const arrived = Date.now();
    const [pathname, search] = (req.url ?? '').split('?', 2) as [string, string | undefined];
    const update = /^\/2010-04-01\/Accounts\/([^/]+)\/Calls\/(CA[0-9a-f]{32})\.json$/.exec(pathname);
    if (update && req.method === 'POST') {
      const expected = `Basic ${Buffer.from(`${accountSid}:${authToken}`).toString('base64')}`;
      if (req.headers.authorization !== expected || update[1] !== accountSid)
        return error(res, 401, 20003, 'Authenticate');
      const params = Object.fromEntries(new URLSearchParams(raw));
      const known = requests.some((r) => r.resource === 'Calls' && r.sid === update[2]);
      if (!known) {
        requests.push({
          resource: 'CallUpdate',
          params: { ...params, CallSid: update[2]! },
          status: 404,
          sid: null,
          at: arrived,
        });
        return error(res, 404, 20404, 'The requested resource was not found');
      }
      if (params.Twiml && !/^\s*(<\?xml[^>]*\?>)?\s*<Response>[\s\S]*<\/Response>\s*$/.test(params.Twiml))
        return error(res, 400, 12100, 'Document parse failure');
      requests.push({
        resource: 'CallUpdate',
        params: { ...params, CallSid: update[2]! },
        status: 200,
        sid: update[2]!,
        at: arrived,
      });
      return res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ sid: update[2], status: params.Status ?? 'in-progress' }));
    }
    const m = /^\/2010-04-01\/Accounts\/([^/]+)\/(Messages|Calls)\.json$/.exec(pathname);
    const listing = req.method === 'GET' && m?.[2] === 'Messages';
    if ((req.method !== 'POST' && !listing) || !m || (!listing && search !== undefined))
      return error(res, 404, 20404, 'The requested resource was not found');
    const [, pathSid, resource] = m as unknown as [string, string, 'Messages' | 'Calls'];
    const expected = `Basic ${Buffer.from(`${accountSid}:${authToken}`).toString('base64')}`;
    if (req.headers.authorization !== expected || pathSid !== accountSid) return error(res, 401, 20003, 'Authenticate');
    if (listing) {
      const query = new URLSearchParams(search ?? '');
      const params = Object.fromEntries(query);
      const failure = failures.find((f) => f.method === 'GET' && f.left > 0 && f.match({ resource, params }));
      if (failure) {
        failure.left -= 1;
        lists.push({ params, status: failure.status, count: 0, at: arrived });
        return error(res, failure.status, 20500, 'Internal Server Error');
      }
      const page = listPage(accountSid, messages, query);
      lists.push({ params, status: 200, count: page.messages.length, at: arrived });
      return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(page));
    }
    if (!(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded'))
      return error(res, 400, 20001, 'Parameters must be form-encoded');
    const params = Object.fromEntries(new URLSearchParams(raw));
    const record = (status: number, answered: string | null) =>
      requests.push({ resource, params, status, sid: answered, at: arrived });

    const failure = failures.find((f) => f.method === 'POST' && f.left > 0 && f.match({ resource, params }));
    if (failure) {
      failure.left -= 1;
      record(failure.status, null);
      return error(
        res,
        failure.status,
        failure.code ?? 20500,
        failure.code === undefined ? 'Internal Server Error' : `Twilio error ${failure.code}`,
      );
    }
    const check = (): [number, string] | undefined => {
      if (!params.To)
        return resource === 'Messages'
          ? [21604, "A 'To' phone number is required."]
          : [21201, "No 'To' number is specified"];
      if (!params.From)
        return resource === 'Messages'
          ? [21603, "A 'From' phone number is required."]
          : [21213, "No 'From' number is specified"];
      if (!E164.test(params.To)) return [21211, `Invalid 'To' Phone Number: ${params.To}`];
      if (!E164.test(params.From)) return [21212, `Invalid From Number (caller ID): ${params.From}`];
      if (resource === 'Messages') {
        if (!params.Body && !params.MediaUrl) return [21602, 'Message body is required.'];
        if (params.Body && params.Body.length > 1600)
          return [21617, 'The concatenated message body exceeds the 1600 character limit.'];
      } else {
        if (!params.Url && !params.Twiml && !params.ApplicationSid) return [21205, 'Url parameter is required.'];
        if (
          params.Twiml &&
          (params.Twiml.length > 4000 ||
            !/^\s*(<\?xml[^>]*\?>)?\s*<Response>[\s\S]*<\/Response>\s*$/.test(params.Twiml))
        ) {
          return [12100, 'Document parse failure'];
        }
      }
      if (params.StatusCallback && !/^https?:\/\//.test(params.StatusCallback))
        return [21609, 'Invalid StatusCallback URL'];
      return undefined;
    };
    const problem = check();
    if (problem) {
      record(400, null);
      return error(res, 400, problem[0], problem[1]);
    }
    const answered = sid(resource === 'Messages' ? 'SM' : 'CA');
    const create = () => {
      record(201, answered);
      const at = Date.now();
      if (resource !== 'Messages')
        return {
          sid: answered,
          account_sid: accountSid,
          to: params.To,
          from: params.From,
          status: 'queued',
          direction: 'outbound-api',
          date_created: twilioDate(at),
        };
      const created: MessageResource = {
        sid: answered,
        account_sid: accountSid,
        to: params.To!,
        from: params.From!,
        body: params.Body ?? '',
        status: 'queued',
        direction: 'outbound-api',
        date_created: twilioDate(at),
        date_updated: twilioDate(at),
        date_sent: twilioDate(at),
        num_segments: '1',
        api_version: '2010-04-01',
        uri: `/2010-04-01/Accounts/${accountSid}/Messages/${answered}.json`,
        createdMs: at,
      };
      messages.push(created);
      const { createdMs: _, ...body } = created;
      return body;
    };
    if (resource === 'Messages' && slowMs > 0) {
      const delay = slowMs;
      const accept = slowAccept(params);
      let gone = false;
      let waiting = true;
      // Counted while its client waits: one whose client died (a killed process) is no longer in flight.
      const release = () => {
        if (waiting) pending -= 1;
        waiting = false;
      };
      res.on('close', () => {
        gone = !res.writableFinished;
        release();
      });
      pending += 1;
      const early = accept === 'on_arrival' ? create() : undefined;
      await new Promise((r) => setTimeout(r, delay));
      release();
      // A client that went away before Twilio got to its request never reached it.
      if (gone) return;
      res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify(early ?? create()));
      return;
    }
    res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify(create()));
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => void handle(req, res, Buffer.concat(chunks).toString('utf8')));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    accepted: (resource, where = () => true) =>
      requests.filter(
        (r) =>
          r.resource === resource &&
          (r.status === 201 || (r.resource === 'CallUpdate' && r.status === 200)) &&
          where(r.params),
      ),
    failNext: (match, status = 500, times = 1, method = 'POST', code) =>
      void failures.push({ match, status, left: times, method, ...(code === undefined ? {} : { code }) }),
    lists,
    slowly: (ms, accept = () => 'on_arrival') => {
      slowMs = ms;
      slowAccept = accept;
    },
    inFlight: () => pending,
    callbacks: (serverUrl) => {
      const placed = (callSid: string) => {
        const call = requests.find((r) => r.resource === 'Calls' && r.status === 201 && r.sid === callSid);
        if (!call) throw new Error(`the fake Twilio placed no call ${callSid}`);
        return call.params;
      };
      const post = async (url: string | undefined, params: Record<string, string>): Promise<CallbackAnswer> => {
        if (!url) throw new Error('the call was placed without that callback URL');
        const target = new URL(url);
        const res = await fetch(serverUrl + target.pathname + target.search, {
          method: 'POST',
          headers: {
            'content-type': 'application/x-www-form-urlencoded; charset=UTF-8',
            'x-twilio-signature': twilioSign(url, params, authToken),
          },
          body: new URLSearchParams(params).toString(),
        });
        return { status: res.status, body: await res.text() };
      };
      const common = (callSid: string, p: Record<string, string>) => ({
        AccountSid: accountSid,
        ApiVersion: '2010-04-01',
        CallSid: callSid,
        Direction: 'outbound-api',
        From: p.From!,
        To: p.To!,
      });
      return {
        amd: (callSid, answeredBy) => {
          const p = placed(callSid);
          return post(p.AsyncAmdStatusCallback, {
            ...common(callSid, p),
            AnsweredBy: answeredBy,
            MachineDetectionDuration: '2150',
          });
        },
        status: (callSid, callStatus, durationSeconds) => {
          const p = placed(callSid);
          return post(p.StatusCallback, {
            ...common(callSid, p),
            CallStatus: callStatus,
            ...(durationSeconds === undefined
              ? {}
              : { CallDuration: String(durationSeconds), Duration: String(Math.ceil(durationSeconds / 60)) }),
          });
        },
      };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
