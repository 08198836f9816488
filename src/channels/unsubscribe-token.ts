import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Config } from '../platform/config.js';
import type { Database } from '../platform/db/schema.js';
import { instanceSecret } from '../platform/secrets.repository.js';
import type { ChannelName } from '../lead-records/channels.js';

/**
 * Unsubscribe links (RFC 8058 one-click). The token names the organization,
 * the lead, the channel and when it was issued, and carries an HMAC-SHA256 of
 * all of it: nobody can forge or alter one without the key, and it needs no
 * row of its own. Links do not expire: a recipient may unsubscribe from a
 * message of long ago (CAN-SPAM wants at least 30 days), and the only power a
 * link gives is to stop mail to its own recipient.
 *
 * Layout, 72 bytes -> 96 base64url characters with no padding bits (Fastify's
 * default limit for a path parameter is 100):
 *   version(1) | organization uuid(16) | lead uuid(16) | channel(1) | issued-at ms(6) | HMAC-SHA256(32)
 */
export interface UnsubscribeClaims {
  organizationId: string;
  leadId: string;
  channel: ChannelName;
  issuedAt: Date;
  /**
   * The keyed digest (hex) of the address the link was sent to: the link
   * unsubscribes that address, even after the lead changed its email or was
   * erased. Absent from links issued before version 2, which name the lead only.
   */
  addressDigest?: string;
}

// Version 1: organization, lead, channel, time. Version 2 adds the address's digest (32 bytes).
const V1_BODY_BYTES = 1 + 16 + 16 + 1 + 6;
const V2_BODY_BYTES = V1_BODY_BYTES + 32;
const MAC_BYTES = 32;
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{96}$|^[A-Za-z0-9_-]{139}$/;
const CHANNEL_CODES: Record<ChannelName, number> = { sms: 1, voice: 2, email: 3 };
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function uuidBytes(id: string): Buffer {
  if (!UUID.test(id)) throw new Error(`not a UUID: ${id}`);
  return Buffer.from(id.replace(/-/g, ''), 'hex');
}

function uuidText(bytes: Buffer): string {
  const h = bytes.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

const mac = (key: Buffer, body: Buffer): Buffer => createHmac('sha256', key).update(body).digest();

export function issueUnsubscribeToken(key: Buffer, claims: UnsubscribeClaims): string {
  const digest = claims.addressDigest === undefined ? undefined : Buffer.from(claims.addressDigest, 'hex');
  if (digest && digest.length !== 32) throw new Error('addressDigest must be 32 bytes of hex');
  const body = Buffer.alloc(digest ? V2_BODY_BYTES : V1_BODY_BYTES);
  body.writeUInt8(digest ? 2 : 1, 0);
  digest?.copy(body, V1_BODY_BYTES);
  uuidBytes(claims.organizationId).copy(body, 1);
  uuidBytes(claims.leadId).copy(body, 17);
  body.writeUInt8(CHANNEL_CODES[claims.channel], 33);
  body.writeUIntBE(claims.issuedAt.getTime(), 34, 6);
  return Buffer.concat([body, mac(key, body)]).toString('base64url');
}

/** The claims of a genuine token; undefined for anything forged, altered, truncated or garbled. */
export function verifyUnsubscribeToken(key: Buffer, token: string): UnsubscribeClaims | undefined {
  if (!TOKEN_PATTERN.test(token)) return undefined;
  const raw = Buffer.from(token, 'base64url');
  // Exactly one spelling per token: no second string decodes to the same bytes.
  const bodyBytes = raw.length - MAC_BYTES;
  if ((bodyBytes !== V1_BODY_BYTES && bodyBytes !== V2_BODY_BYTES) || raw.toString('base64url') !== token)
    return undefined;
  const body = raw.subarray(0, bodyBytes);
  if (!timingSafeEqual(mac(key, body), raw.subarray(bodyBytes))) return undefined;
  if (body.readUInt8(0) !== (bodyBytes === V2_BODY_BYTES ? 2 : 1)) return undefined;
  const code = body.readUInt8(33);
  const channel = (Object.keys(CHANNEL_CODES) as ChannelName[]).find((c) => CHANNEL_CODES[c] === code);
  if (!channel) return undefined;
  return {
    organizationId: uuidText(body.subarray(1, 17)),
    leadId: uuidText(body.subarray(17, 33)),
    channel,
    issuedAt: new Date(body.readUIntBE(34, 6)),
    ...(bodyBytes === V2_BODY_BYTES ? { addressDigest: body.subarray(V1_BODY_BYTES).toString('hex') } : {}),
  };
}

export const unsubscribeUrl = (publicUrl: string, token: string): string => `${publicUrl}/v1/unsubscribe/${token}`;

/** A key of its own for links, derived from the signing secret, so the secret may later sign other things without a token of one kind passing for another. */
const deriveKey = (secret: string): Buffer =>
  createHmac('sha256', secret).update('parley unsubscribe link v1').digest();

const keys = new WeakMap<object, Promise<Buffer>>();

/**
 * The link key: from PARLEY_SIGNING_SECRET, else from the installation secret
 * in the database (created on first use). Loaded once per database handle; a
 * failed load is not remembered, so the next send or request tries again.
 */
export function unsubscribeKey(deps: { config: Config; db: Kysely<Database> }): Promise<Buffer> {
  if (deps.config.signingSecret) return Promise.resolve(deriveKey(deps.config.signingSecret));
  let key = keys.get(deps.db);
  if (!key) {
    key = instanceSecret(deps.db, 'unsubscribe_signing').then(deriveKey);
    keys.set(deps.db, key);
    key.catch(() => keys.delete(deps.db));
  }
  return key;
}
