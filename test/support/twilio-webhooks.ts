import { createHmac } from 'node:crypto';
import type { ApiResponse, TestServer } from './harness.js';

/**
 * Twilio's documented request signature, written out independently of the
 * server: the full URL, then each POST parameter name followed by its value,
 * sorted by name, HMAC-SHA1 keyed by the auth token, base64.
 */
export function twilioSign(url: string, params: Record<string, string>, token: string): string {
  const data = Object.keys(params)
    .sort()
    .reduce((acc, name) => acc + name + params[name], url);
  return createHmac('sha1', token).update(Buffer.from(data, 'utf-8')).digest('base64');
}

/** Posts a webhook as Twilio would: form-encoded, signed for the server's public URL. */
export async function signedWebhook(
  ts: TestServer,
  publicUrl: string,
  token: string,
  path: string,
  params: Record<string, string>,
): Promise<ApiResponse> {
  return ts.raw(path, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded; charset=UTF-8',
      'x-twilio-signature': twilioSign(publicUrl + path, params, token),
    },
    body: new URLSearchParams(params).toString(),
  });
}
