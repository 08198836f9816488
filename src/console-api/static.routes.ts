import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { extname, join, resolve, sep } from 'node:path';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import type { Deps } from '../platform/deps.js';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.webmanifest': 'application/manifest+json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.map': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
};

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

function sendFile(reply: FastifyReply, path: string, cache: string): FastifyReply {
  reply.header('cache-control', cache);
  reply.type(TYPES[extname(path).toLowerCase()] ?? 'application/octet-stream');
  return reply.send(createReadStream(path));
}

/**
 * The built single-page console (vite build -> dist/console). A path that is a
 * file is served; any other path under /console is the app's own route and gets
 * index.html. Vite names assets by content hash, so they may be cached for good;
 * index.html is revalidated so a new build shows at once.
 */
export const consoleStaticRoutes =
  (deps: Deps): FastifyPluginAsync =>
  async (app) => {
    const root = resolve(deps.config.console.dir);
    const serve = async (rest: string, reply: FastifyReply) => {
      if (rest === 'api' || rest.startsWith('api/'))
        return reply.code(404).send({ message: 'Not Found', code: 'not_found' });
      const index = join(root, 'index.html');
      if (!(await isFile(index)))
        return reply.code(503).send({ message: 'The console is not built: run npm run build' });
      const file = resolve(root, `.${sep}${rest}`);
      if (rest !== '' && file.startsWith(root + sep) && (await isFile(file))) {
        return sendFile(reply, file, rest.startsWith('assets/') ? 'public, max-age=31536000, immutable' : 'no-cache');
      }
      if (rest.startsWith('assets/')) return reply.code(404).send({ message: 'Not Found', code: 'not_found' });
      return sendFile(reply, index, 'no-cache');
    };
    app.get('/console', { schema: { hide: true } }, async (_req, reply) => serve('', reply));
    app.get('/console/*', { schema: { hide: true } }, async (req, reply) =>
      serve((req.params as { '*': string })['*'] ?? '', reply),
    );
  };
