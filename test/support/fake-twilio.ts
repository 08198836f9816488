import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request Twilio's REST API accepted (or was told to fail). */
export interface TwilioRequest {
  resource: 'Messages' | 'Calls';
  params: Record<string, string>;
  status: number;
  /** The sid answered on success. */
  sid: string | null;
  /** When it arrived (epoch ms, this process's wall clock): pacing suites measure rates by it. */
  at: number;
}

interface Failure {
  match: (r: { resource: string; params: Record<string, string> }) => boolean;
  status: number;
  left: number;
}

export interface FakeTwilio {
  /** Base URL to put in TWILIO_API_BASE_URL. */
  url: string;
  requests: TwilioRequest[];
  /** The accepted requests of one resource, optionally filtered. */
  accepted(resource: 'Messages' | 'Calls', where?: (p: Record<string, string>) => boolean): TwilioRequest[];
  /** The next `times` matching requests get `status` with a Twilio error body. */
  failNext(match: Failure['match'], status?: number, times?: number): void;
  close(): Promise<void>;
}

const E164 = /^\+[1-9]\d{6,14}$/;

function error(res: ServerResponse, status: number, code: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(
    JSON.stringify({ code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status }),
  );
}

const sid = (prefix: string) => prefix + randomBytes(16).toString('hex');

/**
 * Twilio's REST API (2010-04-01) as far as Parley uses it, on 127.0.0.1: basic
 * auth with the account SID and auth token, form-encoded parameters, the
 * required-field and format checks Twilio makes, and 201 with the resource.
 */
export async function startFakeTwilio(accountSid: string, authToken: string): Promise<FakeTwilio> {
  const requests: TwilioRequest[] = [];
  const failures: Failure[] = [];

  const handle = (req: IncomingMessage, res: ServerResponse, raw: string) => {
    const arrived = Date.now();
    const m = /^\/2010-04-01\/Accounts\/([^/]+)\/(Messages|Calls)\.json$/.exec(req.url ?? '');
    if (req.method !== 'POST' || !m) return error(res, 404, 20404, 'The requested resource was not found');
    const [, pathSid, resource] = m as unknown as [string, string, 'Messages' | 'Calls'];
    const expected = `Basic ${Buffer.from(`${accountSid}:${authToken}`).toString('base64')}`;
    if (req.headers.authorization !== expected || pathSid !== accountSid) return error(res, 401, 20003, 'Authenticate');
    if (!(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) return error(res, 400, 20001, 'Parameters must be form-encoded');
    const params = Object.fromEntries(new URLSearchParams(raw));
    const record = (status: number, answered: string | null) => requests.push({ resource, params, status, sid: answered, at: arrived });

    const failure = failures.find((f) => f.left > 0 && f.match({ resource, params }));
    if (failure) {
      failure.left -= 1;
      record(failure.status, null);
      return error(res, failure.status, 20500, 'Internal Server Error');
    }
    const check = (): [number, string] | undefined => {
      if (!params.To) return resource === 'Messages' ? [21604, "A 'To' phone number is required."] : [21201, 'No \'To\' number is specified'];
      if (!params.From) return resource === 'Messages' ? [21603, "A 'From' phone number is required."] : [21213, "No 'From' number is specified"];
      if (!E164.test(params.To)) return [21211, `Invalid 'To' Phone Number: ${params.To}`];
      if (!E164.test(params.From)) return [21212, `Invalid From Number (caller ID): ${params.From}`];
      if (resource === 'Messages') {
        if (!params.Body && !params.MediaUrl) return [21602, 'Message body is required.'];
        if (params.Body && params.Body.length > 1600) return [21617, 'The concatenated message body exceeds the 1600 character limit.'];
      } else {
        if (!params.Url && !params.Twiml && !params.ApplicationSid) return [21205, 'Url parameter is required.'];
        if (params.Twiml && (params.Twiml.length > 4000 || !/^\s*(<\?xml[^>]*\?>)?\s*<Response>[\s\S]*<\/Response>\s*$/.test(params.Twiml))) {
          return [12100, 'Document parse failure'];
        }
      }
      if (params.StatusCallback && !/^https?:\/\//.test(params.StatusCallback)) return [21609, 'Invalid StatusCallback URL'];
      return undefined;
    };
    const problem = check();
    if (problem) {
      record(400, null);
      return error(res, 400, problem[0], problem[1]);
    }
    const answered = sid(resource === 'Messages' ? 'SM' : 'CA');
    record(201, answered);
    const now = new Date().toUTCString();
    const body =
      resource === 'Messages'
        ? { sid: answered, account_sid: accountSid, to: params.To, from: params.From, body: params.Body, status: 'queued', direction: 'outbound-api', date_created: now }
        : { sid: answered, account_sid: accountSid, to: params.To, from: params.From, status: 'queued', direction: 'outbound-api', date_created: now };
    res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => handle(req, res, Buffer.concat(chunks).toString('utf8')));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    accepted: (resource, where = () => true) => requests.filter((r) => r.resource === resource && r.status === 201 && where(r.params)),
    failNext: (match, status = 500, times = 1) => void failures.push({ match, status, left: times }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
