import type { TrustProxy } from '../config.js';

type FastifyTrustProxy = boolean | string[] | ((address: string, hop: number) => boolean);

/**
 * Fastify's `trustProxy` for PARLEY_TRUST_PROXY. A hop count is given as a
 * function trusting the first `hops` addresses from the socket's side: Fastify
 * reads a bare number as "trust nobody", and `true` would believe the left-most
 * X-Forwarded-For address, the one a client writes itself.
 */
export function fastifyTrustProxy(trust: TrustProxy): FastifyTrustProxy {
  if (trust === false) return false;
  if ('hops' in trust) {
    const { hops } = trust;
    return (_address, hop) => hop < hops;
  }
  return trust.proxies;
}
