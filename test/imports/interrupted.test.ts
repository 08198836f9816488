import { expect, it } from 'vitest';
import { INTERRUPTED } from '../../src/imports/imports.service.js';
import { findOrganizationByName } from '../../src/organizations/organizations.repository.js';
import { newId } from '../../src/platform/ids.js';
import { describeEachDialect } from '../support/harness.js';
import { importCsv, importPhone } from './support.js';

/**
 * An import runs in one process; if it dies the row cannot end itself. The
 * process beats (heartbeat_at) with each batch and every 10 s; a running
 * import silent for over 2 minutes is reported failed, saying how to finish it.
 */
describeEachDialect('an import whose process died', (ctx) => {
  async function runningImport(beatAgoMs: number | null) {
    const ts = ctx();
    const client = await ts.clientWithScopes(['leads:read', 'leads:write'], 'imp-heartbeat');
    const org = (await findOrganizationByName(ts.server.store.db, 'imp-heartbeat'))!;
    const now = ts.server.deps.clock.now().getTime();
    const id = newId();
    await ts.server.store.db
      .insertInto('imports')
      .values({
        organization_id: org.id,
        id,
        status: 'running',
        source: 'api',
        options: JSON.stringify({
          profile: 'default',
          onDuplicate: 'update',
          startConversations: false,
          dryRun: false,
          map: null,
        }),
        headers: '["First Name","Phone"]',
        total: 2000,
        created: 1990,
        error: null,
        started_at: new Date(now - 3_600_000).toISOString(),
        finished_at: null,
        heartbeat_at: beatAgoMs === null ? null : new Date(now - beatAgoMs).toISOString(),
      })
      .execute();
    return { client, id };
  }

  it('is reported failed once its beat is over 2 minutes old, with the committed counts and how to finish', async () => {
    const { client, id } = await runningImport(3 * 60_000);
    const res = await client.get(`/imports/${id}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: 'failed',
      error: INTERRUPTED,
      total: 2000,
      created: 1990,
      finishedAt: expect.any(String),
    });
    expect(INTERRUPTED).toMatch(/Import the same file again/);
    // It stays so.
    expect((await client.get(`/imports/${id}`)).body).toMatchObject({
      status: 'failed',
      finishedAt: res.body.finishedAt,
    });
  });

  it('an import that beat recently is still running; one from before heartbeats counts from its start', async () => {
    const fresh = await runningImport(30_000);
    expect((await fresh.client.get(`/imports/${fresh.id}`)).body.status).toBe('running');
    const old = await runningImport(null);
    expect((await old.client.get(`/imports/${old.id}`)).body.status).toBe('failed');
  });

  it('a finished import beat with every batch', async () => {
    const ts = ctx();
    const client = await ts.clientWithScopes(['leads:read', 'leads:write'], 'imp-heartbeat');
    const done = await importCsv(client, `First Name,Phone\nA,${importPhone()}\n`);
    const row = await ts.server.store.db
      .selectFrom('imports')
      .select(['heartbeat_at', 'started_at'])
      .where('id', '=', done.id)
      .executeTakeFirstOrThrow();
    expect(row.heartbeat_at).not.toBeNull();
    expect(row.heartbeat_at! >= row.started_at).toBe(true);
  });
});
