import { rmSync } from 'node:fs';
import SqliteDatabase from 'better-sqlite3';
import type { Row } from '../lib/table.js';
import { openStore } from '../../src/platform/db/connect.js';
import { migrateToLatest } from '../../src/platform/db/migrate.js';
import { createOrganization } from '../../src/organizations/organizations.repository.js';

/**
 * What `secure_delete = ON` (platform/db/connect.ts: an erased row's bytes are
 * zeroed, not left in the page) costs writes. Two files with Parley's schema,
 * the server's durability (WAL, synchronous=FULL), one with secure_delete off
 * and one on, driven alternately in the same run with the same statements:
 * insert leads (500 per transaction), update each (a longer last name and
 * additionalInfo: the old cell's space is freed, so zeroed when on), delete
 * half of them. Best of two rounds per setting; reported as ratios only
 * (absolute times on a shared machine drift).
 */
const DATA = 'bench/data';
const PER_TX = 500;

type Phase = 'insert' | 'update' | 'delete';

/** A migrated file with an organization (and its default profile) to hold the leads; answers the file and the organization's id. */
async function freshFile(name: string): Promise<{ file: string; org: string }> {
  const file = `${DATA}/${name}.db`;
  for (const s of ['', '-wal', '-shm']) rmSync(file + s, { force: true });
  const store = openStore(`sqlite:${file}`);
  await migrateToLatest(store);
  const org = await store.db
    .transaction()
    .execute((trx) => createOrganization(trx, 'bench', new Date().toISOString(), 'UTC'));
  await store.close();
  return { file, org: org.id };
}

function runRound(
  { file, org }: { file: string; org: string },
  secure: boolean,
  leads: number,
  round: number,
): Record<Phase, number> {
  const tag = `r${round}`;
  const db = new SqliteDatabase(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma(`secure_delete = ${secure ? 'ON' : 'OFF'}`);
  const at = new Date().toISOString();
  const insert =
    db.prepare(`insert into leads (organization_id, id, first_name, last_name, phone, email, customer_profile, additional_info,
    has_replied, is_hot, is_qualified, is_ai_on, sms_status, voice_status, email_status, created_at, updated_at)
    values (?, ?, ?, 'Lee', ?, ?, 'default', '{}', 0, 0, 0, 0, 'subscribed', 'subscribed', 'subscribed', ?, ?)`);
  const update = db.prepare(
    `update leads set last_name = ?, additional_info = ?, updated_at = ? where organization_id = ? and id = ?`,
  );
  const remove = db.prepare(`delete from leads where organization_id = ? and id = ?`);
  const ids = Array.from({ length: leads }, (_, i) => `${tag}-${String(i).padStart(8, '0')}`);
  const timed = (work: (id: string, i: number) => void, count: number): number => {
    const started = process.hrtime.bigint();
    for (let from = 0; from < count; from += PER_TX) {
      db.transaction(() => {
        for (let i = from; i < Math.min(count, from + PER_TX); i++) work(ids[i]!, i);
      })();
    }
    return Number(process.hrtime.bigint() - started) / 1e6;
  };
  // Scrambled phones and emails: index inserts land all over the trees, as with real data.
  // Each round's addresses differ (half of the previous round's leads are still there).
  const n = (i: number) => ((i + round * leads) * 1_234_567) % 7_000_003;
  const ms = {
    insert: timed(
      (id, i) =>
        insert.run(
          org,
          id,
          `First${i}`,
          `+1415${String(2_000_000 + n(i)).padStart(7, '0')}`,
          `${tag}.${n(i)}@example.com`,
          at,
          at,
        ),
      leads,
    ),
    update: timed(
      (id, i) =>
        update.run(
          `Lee-Longer-Name-${i}`,
          JSON.stringify({ note: `updated ${i}`, company: `Company ${i % 1000}` }),
          at,
          org,
          id,
        ),
      leads,
    ),
    delete: timed((id) => remove.run(org, id), Math.floor(leads / 2)),
  };
  db.close();
  return ms;
}

export async function secureDeleteSection(quick: boolean) {
  const leads = quick ? 5_000 : 50_000;
  const files = { off: await freshFile('secure-delete-off'), on: await freshFile('secure-delete-on') };
  const best: Record<'off' | 'on', Record<Phase, number>> = {
    off: { insert: Infinity, update: Infinity, delete: Infinity },
    on: { insert: Infinity, update: Infinity, delete: Infinity },
  };
  for (let r = 0; r < 2; r++) {
    for (const mode of r === 0 ? (['off', 'on'] as const) : (['on', 'off'] as const)) {
      const ms = runRound(files[mode], mode === 'on', leads, r);
      for (const p of Object.keys(ms) as Phase[]) best[mode][p] = Math.min(best[mode][p], ms[p]);
    }
  }
  const rows: Row[] = (['insert', 'update', 'delete'] as const).map((p) => ({
    section: 'secure-delete-sqlite',
    measure: `${p} time, secure_delete on vs off (${p === 'delete' ? leads / 2 : leads} leads, ${PER_TX}/tx)`,
    value: `${Math.round(best.on[p])} ms`,
    reference: `${Math.round(best.off[p])} ms (off)`,
    ratio: `${(best.on[p] / best.off[p]).toFixed(2)}x`,
    target: 'report',
    met: null,
  }));
  for (const { file } of Object.values(files)) for (const s of ['', '-wal', '-shm']) rmSync(file + s, { force: true });
  return { rows, raw: { leads, best } };
}
