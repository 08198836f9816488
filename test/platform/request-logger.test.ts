import { Writable } from 'node:stream';
import type { FastifyBaseLogger } from 'fastify';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/platform/logger.js';
import { lazyRequestLogger } from '../../src/platform/http/request-logger.js';

function capture(level: string) {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write: (chunk, _enc, done) => {
      lines.push(JSON.parse(String(chunk)) as Record<string, unknown>);
      done();
    },
  });
  const log = createLogger(level, sink) as unknown as FastifyBaseLogger;
  let children = 0;
  const child = log.child.bind(log);
  log.child = (...args) => {
    children += 1;
    return child(...args);
  };
  return { log, lines, children: () => children };
}

describe('the per-request logger (platform/http/request-logger.ts)', () => {
  it('builds no child for a request that writes nothing at the configured level', () => {
    const { log, lines, children } = capture('warn');
    const req = lazyRequestLogger(log, { reqId: 'r1' }, {});
    req.info({ status: 403 }, 'refused');
    req.debug('detail');
    expect(lines).toEqual([]);
    expect(children()).toBe(0);
  });

  it('writes the same line as an eager child once a line is due, bindings, redaction and masking included', () => {
    const { log, lines, children } = capture('info');
    const req = lazyRequestLogger(log, { reqId: 'r2' }, {});
    req.info({ status: 403, headers: { 'x-api-key': 'pk_live_secret' } }, 'refused for +14155550123');
    req.warn('second');
    expect(children()).toBe(1);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({ reqId: 'r2', status: 403, msg: 'refused for +1415***0123', level: 30 });
    expect(JSON.stringify(lines[0])).not.toContain('pk_live_secret');
    expect(lines[1]).toMatchObject({ reqId: 'r2', msg: 'second', level: 40 });
    expect(req.child({ job: 'x' })).toBeDefined();
  });

  it('gives a route with a log level of its own an eager child at that level', () => {
    const { log, lines } = capture('warn');
    const req = lazyRequestLogger(log, { reqId: 'r3' }, { level: 'info' });
    req.info('shown at the route level');
    expect(lines).toMatchObject([{ reqId: 'r3', msg: 'shown at the route level' }]);
  });
});
