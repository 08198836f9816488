import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { until } from './assert.js';

export interface ReceivedMail {
  mailFrom: string;
  rcptTo: string[];
  /** Header name (lowercase) -> unfolded value; the last one wins. */
  headers: Map<string, string>;
  /** The decoded text body. */
  text: string;
  raw: string;
}

export interface SmtpSink {
  /** smtp://user:pass@127.0.0.1:port */
  url: string;
  port: number;
  received: ReceivedMail[];
  /** Waits until `count` messages have arrived. */
  waitFor(count: number, ms?: number): Promise<ReceivedMail[]>;
  /** The server takes each message at once and gives its answer `ms` later (0: at once): a client that gives up first never hears it. */
  answerAfter(ms: number): void;
  /** The next `times` RCPT TO of `address` are answered with `code` (550: a hard bounce, 450: a soft one). */
  refuseRecipient(address: string, code: number, times?: number): void;
  /** Stops listening (connections refused) until up() is called. */
  down(): Promise<void>;
  up(): Promise<void>;
  close(): Promise<void>;
}

const USER = 'parley';
const PASS = 'sink-password';

function decodeQuotedPrintable(body: string): string {
  const bytes: number[] = [];
  const text = body.replace(/=\r?\n/g, '');
  for (let i = 0; i < text.length; i++) {
    const hex = text[i] === '=' ? text.slice(i + 1, i + 3) : '';
    if (/^[0-9A-Fa-f]{2}$/.test(hex)) {
      bytes.push(parseInt(hex, 16));
      i += 2;
    } else {
      bytes.push(...Buffer.from(text[i]!, 'utf8'));
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

/** Enough of RFC 5322 for the single-part text messages Parley sends. */
export function parseMail(raw: string): { headers: Map<string, string>; text: string } {
  const split = raw.indexOf('\r\n\r\n');
  const head = raw.slice(0, split).replace(/\r\n[ \t]+/g, ' ');
  const body = raw.slice(split + 4);
  const headers = new Map<string, string>();
  for (const line of head.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  const encoding = (headers.get('content-transfer-encoding') ?? '7bit').toLowerCase();
  const text =
    encoding === 'quoted-printable'
      ? decodeQuotedPrintable(body)
      : encoding === 'base64'
        ? Buffer.from(body, 'base64').toString('utf8')
        : body;
  return { headers, text: text.replace(/\r\n/g, '\n') };
}

/**
 * A real SMTP server on 127.0.0.1 (the smtp-server package) that requires
 * AUTH PLAIN/LOGIN, like any relay Parley would be pointed at, and keeps what
 * it receives.
 */
export async function startSmtpSink(): Promise<SmtpSink> {
  const received: ReceivedMail[] = [];
  let answerDelayMs = 0;
  const refusals: { address: string; code: number; left: number }[] = [];
  let server: SMTPServer | undefined;
  let port = 0;

  const listen = async () => {
    const s = new SMTPServer({
      secure: false,
      disabledCommands: ['STARTTLS'],
      allowInsecureAuth: true,
      authOptional: false,
      closeTimeout: 50,
      logger: false,
      onAuth(auth, _session, cb) {
        if (auth.username === USER && auth.password === PASS) cb(null, { user: USER });
        else cb(new Error('Invalid username or password'));
      },
      onRcptTo(address, _session, cb) {
        const refusal = refusals.find((r) => r.left > 0 && r.address === address.address.toLowerCase());
        if (!refusal) return cb();
        refusal.left -= 1;
        cb(
          Object.assign(new Error(refusal.code >= 500 ? 'Mailbox does not exist' : 'Mailbox busy, try again later'), {
            responseCode: refusal.code,
          }),
        );
      },
      onData(stream, session, cb) {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          const raw = Buffer.concat(chunks).toString('utf8');
          received.push({
            mailFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            rcptTo: session.envelope.rcptTo.map((r) => r.address),
            raw,
            ...parseMail(raw),
          });
          if (answerDelayMs > 0) setTimeout(() => cb(), answerDelayMs);
          else cb();
        });
      },
    });
    await new Promise<void>((resolve, reject) => {
      s.once('error', reject);
      s.listen(port, '127.0.0.1', () => resolve());
    });
    s.on('error', () => {});
    port = (s.server.address() as AddressInfo).port;
    server = s;
  };

  const down = async () => {
    const s = server;
    server = undefined;
    if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
  };

  await listen();
  return {
    url: `smtp://${USER}:${PASS}@127.0.0.1:${port}`,
    port,
    received,
    answerAfter: (ms) => void (answerDelayMs = ms),
    refuseRecipient: (address, code, times = 1) =>
      void refusals.push({ address: address.toLowerCase(), code, left: times }),
    async waitFor(count, ms = 10_000) {
      await until(
        () => received.length,
        (n) => n >= count,
        ms,
        { what: `SMTP sink: ${count} messages`, every: 20 },
      );
      return received;
    },
    down,
    up: listen,
    close: down,
  };
}
