import { request } from 'undici';
import type { TwilioConfig } from '../../platform/config.js';

const TIMEOUT_MS = 10_000;

export class TwilioCallError extends Error {}

/**
 * Twilio's Calls resource (2010-04-01): create a call (`Calls.json`) and
 * update a live one (`Calls/{Sid}.json`: new TwiML, or Status=completed to
 * hang up). Basic auth with the account SID and auth token.
 */
async function post(
  twilio: TwilioConfig,
  path: string,
  form: Record<string, string>,
): Promise<Record<string, unknown>> {
  let res;
  try {
    res = await request(`${twilio.apiBaseUrl}/2010-04-01/Accounts/${encodeURIComponent(twilio.accountSid)}/${path}`, {
      method: 'POST',
      body: new URLSearchParams(form).toString(),
      headers: {
        authorization: `Basic ${Buffer.from(`${twilio.accountSid}:${twilio.authToken}`).toString('base64')}`,
        accept: 'application/json',
        'content-type': 'application/x-www-form-urlencoded',
        'user-agent': 'Parley/1.0',
      },
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch (err) {
    throw new TwilioCallError(`Twilio unreachable: ${(err as Error & { code?: string }).code ?? (err as Error).name}`);
  }
  const text = await res.body.text();
  let body: Record<string, unknown> = {};
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // kept empty
  }
  if (res.statusCode < 200 || res.statusCode >= 300) {
    const detail = [body.code, body.message].filter((x) => x !== undefined && x !== '').join(' ');
    throw new TwilioCallError(`Twilio answered HTTP ${res.statusCode}${detail ? `: ${detail}` : ''}`.slice(0, 300));
  }
  return body;
}

export async function createCall(twilio: TwilioConfig, form: Record<string, string>): Promise<string> {
  const body = await post(twilio, 'Calls.json', form);
  if (typeof body.sid !== 'string' || body.sid === '') throw new TwilioCallError('Twilio answered without a sid');
  return body.sid;
}

export async function updateLiveCall(twilio: TwilioConfig, sid: string, form: Record<string, string>): Promise<void> {
  await post(twilio, `Calls/${encodeURIComponent(sid)}.json`, form);
}
