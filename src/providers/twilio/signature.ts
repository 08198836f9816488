import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Twilio's request signature (X-Twilio-Signature): base64 HMAC-SHA1, keyed by
 * the auth token, of the URL Twilio called (with its query string) followed by
 * every POST parameter as name then value, sorted by name, no separators.
 * A repeated name contributes each of its values, in sorted order.
 */
export function twilioSignature(
  authToken: string,
  url: string,
  params: readonly (readonly [string, string])[],
): string {
  const sorted = [...params].sort(([an, av], [bn, bv]) =>
    an < bn ? -1 : an > bn ? 1 : av < bv ? -1 : av > bv ? 1 : 0,
  );
  const hmac = createHmac('sha1', authToken).update(url, 'utf8');
  for (const [name, value] of sorted) hmac.update(name + value, 'utf8');
  return hmac.digest('base64');
}

/** Constant-time check of a presented signature; a missing or malformed one is simply wrong. */
export function validTwilioSignature(
  authToken: string,
  url: string,
  params: readonly (readonly [string, string])[],
  presented: unknown,
): boolean {
  if (typeof presented !== 'string' || presented.length === 0 || presented.length > 200) return false;
  const expected = Buffer.from(twilioSignature(authToken, url, params), 'utf8');
  const given = Buffer.from(presented, 'utf8');
  return expected.length === given.length && timingSafeEqual(expected, given);
}
