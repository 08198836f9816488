import { createHash, createHmac, randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';

/** The instance secret addresses are keyed with (platform/address-digest.ts reads the same row). */
// The name platform/address-digest.ts reads the secret by; a migration keeps its own copy (history does not move).
const ADDRESS_DIGEST_SECRET = 'address-digest';

// Compliance you can prove:
// - consent_ledger: every subscription change, append-only, with who or what caused it.
//   Addresses appear only as keyed digests, so the ledger survives a lead's erasure.
// - messages.status_code: the machine-readable reason a send was blocked or is waiting.
// - jobs.lease_token: fences a claim, so a worker whose lease lapsed can neither send nor
//   complete a job another worker now holds.
// - suppressions.digest_kind: suppressions were keyed by a plain SHA-256 of the address,
//   which a phone number's small space makes reversible. New rows are HMAC-SHA256 keyed by an
//   instance secret; rows whose address a lead still holds are rewritten here. Rows of erased
//   leads cannot be (their address is gone): they stay 'sha256' and are still matched.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('consent_ledger')
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('lead_id', 'text')
    .addColumn('channel', 'text', (c) => c.notNull())
    .addColumn('address_digest', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('reason', 'text')
    .addColumn('actor', 'text')
    .addColumn('inbound_message_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('consent_ledger_pk', ['organization_id', 'id'])
    .execute();
  await db.schema
    .createIndex('consent_ledger_lead_idx')
    .on('consent_ledger')
    .columns(['organization_id', 'lead_id', 'id'])
    .execute();
  await db.schema
    .createIndex('consent_ledger_time_idx')
    .on('consent_ledger')
    .columns(['organization_id', 'created_at'])
    .execute();

  // The outcome of each External Compliance Check, allowed or not, for the message it judged.
  await db.schema
    .createTable('send_checks')
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('message_id', 'text', (c) => c.notNull())
    .addColumn('lead_id', 'text', (c) => c.notNull())
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('detail', 'text', (c) => c.notNull())
    .addColumn('reason', 'text')
    .addColumn('latency_ms', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('send_checks_pk', ['organization_id', 'id'])
    .execute();
  await db.schema
    .createIndex('send_checks_message_idx')
    .on('send_checks')
    .columns(['organization_id', 'message_id'])
    .execute();

  await db.schema.alterTable('messages').addColumn('status_code', 'text').execute();
  await db.schema.alterTable('jobs').addColumn('lease_token', 'text').execute();
  await db.schema
    .alterTable('suppressions')
    .addColumn('digest_kind', 'text', (c) => c.notNull().defaultTo('sha256'))
    .execute();

  // Organizations created before zones were written down were judged in UTC: keep that, now explicit
  // (GET /v1/settings shows it; PATCH changes it). New organizations get a zone at creation.
  for (const org of (await db.selectFrom('organizations').select(['id', 'settings']).execute()) as {
    id: string;
    settings: string;
  }[]) {
    const settings = JSON.parse(org.settings) as Record<string, unknown>;
    if (settings.timeZone === undefined)
      await db
        .updateTable('organizations')
        .set({ settings: JSON.stringify({ ...settings, timeZone: 'UTC' }) })
        .where('id', '=', org.id)
        .execute();
  }

  await db
    .insertInto('instance_secrets')
    .values({
      name: ADDRESS_DIGEST_SECRET,
      value: randomBytes(32).toString('base64url'),
      created_at: new Date().toISOString(),
    })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
  const { value } = await db
    .selectFrom('instance_secrets')
    .select('value')
    .where('name', '=', ADDRESS_DIGEST_SECRET)
    .executeTakeFirstOrThrow();
  const legacy = await db.selectFrom('suppressions').select(['organization_id', 'channel', 'address_digest']).execute();
  const orgs = [...new Set(legacy.map((r: { organization_id: string }) => r.organization_id))];
  for (const org of orgs) {
    const leads = await db.selectFrom('leads').select(['phone', 'email']).where('organization_id', '=', org).execute();
    const bySha = new Map<string, string>();
    for (const l of leads as { phone: string | null; email: string | null }[]) {
      for (const a of [l.phone, l.email])
        if (a) bySha.set(createHash('sha256').update(a.toLowerCase(), 'utf8').digest('hex'), a.toLowerCase());
    }
    for (const row of legacy.filter((r: { organization_id: string }) => r.organization_id === org) as {
      channel: string;
      address_digest: string;
    }[]) {
      const address = bySha.get(row.address_digest);
      if (!address) continue;
      const keyed = createHmac('sha256', value).update(address, 'utf8').digest('hex');
      await db
        .updateTable('suppressions')
        .set({ address_digest: keyed, digest_kind: 'hmac' })
        .where('organization_id', '=', org)
        .where('channel', '=', row.channel)
        .where('address_digest', '=', row.address_digest)
        .execute();
    }
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('suppressions').dropColumn('digest_kind').execute();
  await db.schema.alterTable('jobs').dropColumn('lease_token').execute();
  await db.schema.alterTable('messages').dropColumn('status_code').execute();
  await db.schema.dropTable('send_checks').execute();
  await db.schema.dropTable('consent_ledger').execute();
}
