import { readFileSync } from 'node:fs';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

// `npm ci` warns about every installed package whose engines exclude the Node version Parley promises: each
// such warning is a package that may break on a supported Node (cookie 2 through Fastify wanted Node 22).
const root = new URL('../../', import.meta.url);
const manifest = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as { engines: { node: string } };
const lock = JSON.parse(readFileSync(new URL('package-lock.json', root), 'utf8')) as {
  packages: Record<string, { engines?: { node?: string } | string[] }>;
};

describe('installed packages run on the Node versions Parley supports', () => {
  it('every package in the lock file accepts the oldest Node that package.json allows', () => {
    const oldest = semver.minVersion(manifest.engines.node);
    if (!oldest) throw new Error(`package.json's engines.node (${manifest.engines.node}) names no version`);
    const refusing = Object.entries(lock.packages)
      .map(([path, entry]) => ({ path, node: Array.isArray(entry.engines) ? undefined : entry.engines?.node }))
      .filter((p): p is { path: string; node: string } => typeof p.node === 'string')
      .filter((p) => !semver.satisfies(oldest.version, p.node, { includePrerelease: true }))
      .map((p) => `${p.path} wants node ${p.node}`);
    expect(refusing).toEqual([]);
  });
});
