import { createHmac, randomBytes } from 'node:crypto';

/** `whsec_` + base64 of 32 random bytes (Standard Webhooks' secret form). */
export const generateSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;

export interface SignedHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
  'x-signature-sha256': string;
}

/**
 * Both signature styles on every delivery:
 * - Standard Webhooks: base64 HMAC-SHA256 of `id.timestamp.body`, keyed by the
 *   base64-decoded part of the secret after `whsec_`;
 * - the hosted service's `X-Signature-SHA256`: hex HMAC-SHA256 of the raw body,
 *   keyed by the secret string exactly as shown to the client.
 */
export function signDelivery(secret: string, eventId: string, unixSeconds: number, body: string): SignedHeaders {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const standard = createHmac('sha256', key).update(`${eventId}.${unixSeconds}.${body}`).digest('base64');
  const legacy = createHmac('sha256', secret).update(body).digest('hex');
  return {
    'webhook-id': eventId,
    'webhook-timestamp': String(unixSeconds),
    'webhook-signature': `v1,${standard}`,
    'x-signature-sha256': legacy,
  };
}
