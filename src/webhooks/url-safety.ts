import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Only globally routable unicast addresses are fair game for a webhook (SSRF).
 * An IPv6 address that carries an IPv4 address inside it is judged by that
 * IPv4 address, since that is where the packets end up: IPv4-mapped
 * (::ffff:127.0.0.1, ::ffff:7f00:1), IPv4-compatible (::127.0.0.1, written
 * ::7f00:1 by a URL parser), NAT64 (64:ff9b::/96) and 6to4 (2002::/16).
 * Every other special IPv6 range (Teredo, local-use NAT64, ...) is refused.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  const ip = ipaddr.parse(address);
  if (ip.kind() === 'ipv4') return ip.range() === 'unicast';
  const embedded = embeddedIPv4(ip as ipaddr.IPv6);
  if (embedded) return embedded.range() === 'unicast';
  return ip.range() === 'unicast';
}

const NAT64 = ipaddr.parseCIDR('64:ff9b::/96');
const SIX_TO_FOUR = ipaddr.parseCIDR('2002::/16');
const COMPATIBLE = ipaddr.parseCIDR('::/96');

function embeddedIPv4(ip: ipaddr.IPv6): ipaddr.IPv4 | undefined {
  const p = ip.parts;
  const v4 = (hi: number, lo: number) => new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);
  // biome-ignore lint/style/noNonNullAssertion: an IPv6 address has eight parts
  if (ip.isIPv4MappedAddress() || ip.match(NAT64) || ip.match(COMPATIBLE)) return v4(p[6]!, p[7]!);
  // biome-ignore lint/style/noNonNullAssertion: an IPv6 address has eight parts
  if (ip.match(SIX_TO_FOUR)) return v4(p[1]!, p[2]!);
  return undefined;
}

export class UnsafeUrl extends Error {}

/** What the operator sets to allow http and private targets (tests, private networks): refusals name it, so the fix is one step away. */
const ALLOW_PRIVATE = 'PARLEY_ALLOW_PRIVATE_WEBHOOK_URLS=true';

/**
 * Checks a webhook URL before it is stored: https only and every address the
 * name resolves to public, unless the operator allows private targets.
 * Resolution happens again at connect time (see safeLookup), so a name that
 * later re-points to a private address is refused then too.
 */
export async function checkWebhookUrl(raw: string, allowPrivate: boolean): Promise<URL> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UnsafeUrl('url is not a valid absolute URL');
  }
  if (url.protocol !== 'https:' && !(allowPrivate && url.protocol === 'http:')) {
    throw new UnsafeUrl(
      allowPrivate ? 'url must use http or https' : `url must use https (http is allowed only with ${ALLOW_PRIVATE})`,
    );
  }
  if (url.username || url.password) throw new UnsafeUrl('url must not contain credentials');
  if (allowPrivate) return url;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const addresses = isIP(host) ? [host] : await resolveAll(host);
  if (addresses.length === 0) throw new UnsafeUrl('url host does not resolve');
  if (!addresses.every(isPublicAddress))
    throw new UnsafeUrl(
      `url must not point to a private, loopback or link-local address (allowed only with ${ALLOW_PRIVATE})`,
    );
  return url;
}

/**
 * The check made by the delivering process right before each request, with
 * its own setting: a URL stored by a process that allowed private targets is
 * not delivered by one that does not. Scheme and credentials as at save time;
 * an IP-literal host is judged here because no DNS lookup happens for it
 * (a host name's addresses are judged at connect time, by safeLookup).
 * Answers why the request must not be made, or null.
 */
export function refusalAtDelivery(raw: string, allowPrivate: boolean): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'url is not a valid absolute URL';
  }
  if (url.protocol !== 'https:' && !(allowPrivate && url.protocol === 'http:')) {
    return allowPrivate
      ? 'url must use http or https'
      : `url must use https (http is allowed only with ${ALLOW_PRIVATE})`;
  }
  if (url.username || url.password) return 'url must not contain credentials';
  if (allowPrivate) return null;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) && !isPublicAddress(host))
    return `url must not point to a private, loopback or link-local address (allowed only with ${ALLOW_PRIVATE})`;
  return null;
}

function resolveAll(host: string): Promise<string[]> {
  return new Promise((resolve) => {
    dnsLookup(host, { all: true }, (err, addresses: LookupAddress[]) =>
      resolve(err ? [] : addresses.map((a) => a.address)),
    );
  });
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A dns.lookup for the delivery agent that refuses private answers at connect time. */
export function safeLookup(allowPrivate: boolean) {
  return (hostname: string, options: object, callback: LookupCallback): void => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
      if (err) return callback(err, []);
      const allowed = allowPrivate ? addresses : addresses.filter((a) => isPublicAddress(a.address));
      const first = allowed[0];
      if (!first) {
        const refused = Object.assign(new Error(`refused: ${hostname} resolves only to non-public addresses`), {
          code: 'EADDRNOTPUBLIC',
        });
        return callback(refused, []);
      }
      if ((options as { all?: boolean }).all) return callback(null, allowed);
      callback(null, first.address, first.family);
    });
  };
}
