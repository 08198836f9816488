import pino, { type DestinationStream, type Logger } from 'pino';

/**
 * Secrets and message bodies never reach the log: the API key header, webhook
 * secrets and free text are redacted wherever they appear in a logged object.
 */
export const redactPaths = [
  'req.headers["x-api-key"]',
  'req.headers.authorization',
  'headers["x-api-key"]',
  '*.secret',
  '*.apiKey',
  '*.text',
  '*.message_body',
];

const E164 = /\+[1-9]\d{6,14}(?!\d)/g;
const EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/g;

/**
 * Phone numbers and email addresses are personal data, and they reach the log
 * in places no redaction path can name: a provider's error text ("The 'To'
 * number +14155550100 is not valid"), an SMTP rejection, a driver's error
 * detail. So every line is masked as a whole, just before it is written:
 * +14155550100 becomes +1415***0100 and ann.lee@example.com a***@example.com,
 * enough to tell records apart while reading a log, not enough to contact anyone.
 */
export function maskPersonalData(line: string): string {
  let out = line;
  if (out.includes('@')) out = out.replace(EMAIL, (m) => `${m[0]}***${m.slice(m.lastIndexOf('@'))}`);
  if (out.includes('+'))
    out = out.replace(E164, (m) => (m.length >= 11 ? `${m.slice(0, 5)}***${m.slice(-4)}` : `+***${m.slice(-2)}`));
  return out;
}

/**
 * Errors as pino serialises them, less `detail`: PostgreSQL puts the failing
 * row there ("Failing row contains (..., message text, ...)"), which would
 * bring message bodies into the log with any constraint error.
 */
function errorWithoutRowData(err: unknown): unknown {
  const out = pino.stdSerializers.err(err as Error) as unknown;
  if (out && typeof out === 'object' && 'detail' in out) delete (out as { detail?: unknown }).detail;
  return out;
}

/** The process logger: JSON lines on stdout unless a destination is given (tests capture one). */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options = {
    level,
    redact: { paths: redactPaths, censor: '[redacted]' },
    serializers: { err: errorWithoutRowData },
    hooks: { streamWrite: maskPersonalData },
  };
  return destination ? pino(options, destination) : pino(options);
}

export type { Logger };
