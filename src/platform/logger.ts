import pino, { type Logger } from 'pino';

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

export function createLogger(level: string): Logger {
  return pino({ level, redact: { paths: redactPaths, censor: '[redacted]' } });
}

export type { Logger };
