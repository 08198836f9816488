import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/** Only globally routable unicast addresses are fair game for a webhook (SSRF). */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  let ip = ipaddr.parse(address);
  if (ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).isIPv4MappedAddress()) ip = (ip as ipaddr.IPv6).toIPv4Address();
  return ip.range() === 'unicast';
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
    throw new UnsafeUrl(allowPrivate ? 'url must use http or https' : `url must use https (http is allowed only with ${ALLOW_PRIVATE})`);
  }
  if (url.username || url.password) throw new UnsafeUrl('url must not contain credentials');
  if (allowPrivate) return url;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const addresses = isIP(host) ? [host] : await resolveAll(host);
  if (addresses.length === 0) throw new UnsafeUrl('url host does not resolve');
  if (!addresses.every(isPublicAddress)) throw new UnsafeUrl(`url must not point to a private, loopback or link-local address (allowed only with ${ALLOW_PRIVATE})`);
  return url;
}

function resolveAll(host: string): Promise<string[]> {
  return new Promise((resolve) => {
    dnsLookup(host, { all: true }, (err, addresses: LookupAddress[]) => resolve(err ? [] : addresses.map((a) => a.address)));
  });
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A dns.lookup for the delivery agent that refuses private answers at connect time. */
export function safeLookup(allowPrivate: boolean) {
  return (hostname: string, options: object, callback: LookupCallback): void => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
      if (err) return callback(err, []);
      const allowed = allowPrivate ? addresses : addresses.filter((a) => isPublicAddress(a.address));
      if (allowed.length === 0) {
        const refused = Object.assign(new Error(`refused: ${hostname} resolves only to non-public addresses`), { code: 'EADDRNOTPUBLIC' });
        return callback(refused, []);
      }
      if ((options as { all?: boolean }).all) return callback(null, allowed);
      callback(null, allowed[0]!.address, allowed[0]!.family);
    });
  };
}
