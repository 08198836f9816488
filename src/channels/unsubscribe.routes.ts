import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import type { Deps } from '../platform/deps.js';
import { DomainError } from '../platform/errors.js';
import { unsubscribeByLink } from './unsubscribe-link.js';
import { unsubscribeKey, verifyUnsubscribeToken, type UnsubscribeClaims } from './unsubscribe-token.js';

const TokenParams = Type.Object({ token: Type.String() });
const DONE = 'You have been unsubscribed.';

/** The same answer as a path that does not exist: a bad link learns nothing. */
const notFound = () => new DomainError('not_found');

const page = (body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
  `<meta name="robots" content="noindex"><title>Unsubscribe</title>` +
  `<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;line-height:1.5}button{font-size:1rem;padding:.5rem 1rem}</style>` +
  `</head><body><main>${body}</main></body></html>`;

const CONFIRM_PAGE = page(
  '<h1>Unsubscribe</h1><p>Stop receiving these emails?</p>' +
    '<form method="post"><input type="hidden" name="List-Unsubscribe" value="One-Click"><button type="submit">Unsubscribe</button></form>',
);
const DONE_PAGE = page(`<h1>Unsubscribed</h1><p>${DONE}</p>`);

function sendHtml(reply: FastifyReply, html: string): FastifyReply {
  return (
    reply
      .type('text/html; charset=utf-8')
      // The token is in the URL: keep it out of caches and out of any Referer.
      .header('cache-control', 'no-store')
      .header('referrer-policy', 'no-referrer')
      .header('x-robots-tag', 'noindex')
      .header(
        'content-security-policy',
        "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
      )
      .send(html)
  );
}

/**
 * The links in every email (RFC 8058 one-click unsubscribe). They take no API
 * key: the signed token is the authority, and it can only unsubscribe its own
 * recipient from email. A POST unsubscribes (mail providers send
 * `List-Unsubscribe=One-Click` form-encoded; an empty body does the same). A
 * GET only shows a page with a confirm button, because mail scanners fetch
 * every link in a message and must not unsubscribe anyone by doing so.
 */
export const unsubscribeLinkRoutes =
  (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    // Scoped to this plugin: everywhere else the API takes JSON only. Whatever else a
    // provider sends along (multipart/form-data is allowed by RFC 8058) is read and ignored.
    app.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string', bodyLimit: 4096 },
      (_req, body, done) => {
        done(null, Object.fromEntries(new URLSearchParams(body as string)));
      },
    );
    app.addContentTypeParser('*', { parseAs: 'string', bodyLimit: 4096 }, (_req, _body, done) => done(null, {}));

    const claimsOf = async (token: string): Promise<UnsubscribeClaims> => {
      const claims = verifyUnsubscribeToken(await unsubscribeKey(deps), token);
      if (!claims || claims.channel !== 'email') throw notFound();
      return claims;
    };

    app.get('/unsubscribe/:token', { schema: { hide: true, params: TokenParams } }, async (req, reply) => {
      await claimsOf(req.params.token);
      return sendHtml(reply, CONFIRM_PAGE);
    });

    app.post(
      '/unsubscribe/:token',
      { schema: { hide: true, params: TokenParams }, config: { ownBodyFormat: true } },
      async (req, reply) => {
        const claims = await claimsOf(req.params.token);
        await unsubscribeByLink(deps, claims);
        // The confirm button of the GET page lands here in a browser: answer it with a page.
        if (/\btext\/html\b/.test(req.headers.accept ?? '')) return sendHtml(reply, DONE_PAGE);
        return { message: DONE };
      },
    );
  };
