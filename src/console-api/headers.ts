import type { FastifyInstance } from 'fastify';

/** No inline script or style anywhere in the console (docs/console.md): the front end uses built files only. */
export const CONSOLE_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

/** The console's security headers on every /console answer, the API's and the not-found ones included. */
export function registerConsoleHeaders(app: FastifyInstance): void {
  app.addHook('onRequest', (request, reply, done) => {
    const url = request.url;
    if (url === '/console' || url.startsWith('/console/') || url.startsWith('/console?')) {
      reply.header('content-security-policy', CONSOLE_CSP);
      reply.header('x-content-type-options', 'nosniff');
      reply.header('referrer-policy', 'same-origin');
      reply.header('x-frame-options', 'DENY');
    }
    done();
  });
}
