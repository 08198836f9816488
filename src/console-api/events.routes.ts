import type { FastifyPluginAsync } from 'fastify';
import type { Deps } from '../platform/deps.js';
import { sessionToken } from '../platform/auth/session-cookie.js';
import { resolveSession } from '../users/sessions.service.js';
import { EventHub, type StreamEvent } from './event-hub.js';

const HEARTBEAT_MS = 15_000;
/** A revoked or expired session's stream ends within this long. */
const RECHECK_MS = 60_000;

/**
 * GET /console/api/events: Server-Sent Events, one per outbox event of the
 * session's organization. It reads the shared `events` table (event-hub.ts),
 * so an event written by any process on the database reaches every stream.
 */
export const consoleEventRoutes =
  (deps: Deps): FastifyPluginAsync =>
  async (app) => {
    const hub = new EventHub(deps);
    app.addHook('preClose', (done) => {
      hub.closeAll();
      done();
    });

    app.get('/events', { schema: { hide: true } }, (req, reply) => {
      const session = req.consoleSession;
      reply.hijack();
      const res = reply.raw;
      res.writeHead(200, {
        ...(reply.getHeaders() as Record<string, string>),
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache, no-transform',
        connection: 'keep-alive',
        // Reverse proxies (nginx) would otherwise buffer the stream.
        'x-accel-buffering': 'no',
      });
      res.write(': connected\n\n');

      let ended = false;
      const write = (event: StreamEvent) => {
        if (!ended) res.write(`id: ${event.id}\nevent: ${event.type}\ndata: ${JSON.stringify(event.data)}\n\n`);
      };
      const end = () => {
        if (ended) return;
        ended = true;
        clearInterval(heartbeat);
        clearInterval(recheck);
        unsubscribe();
        res.end();
      };
      const heartbeat = setInterval(() => res.write(': heartbeat\n\n'), HEARTBEAT_MS);
      const token = sessionToken(req.headers.cookie) ?? '';
      const recheck = setInterval(() => {
        resolveSession(deps, token).then(
          (live) => live || end(),
          () => undefined,
        );
      }, RECHECK_MS);
      heartbeat.unref();
      recheck.unref();
      const unsubscribe = hub.subscribe(session.organizationId, write, end);
      req.raw.on('close', end);
      res.on('error', end);
    });
  };
