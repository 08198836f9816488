import { sql, type Kysely } from 'kysely';

// Two changes to the analytics rollups (docs/analytics.md).
//
// The openings A/B report from a rollup (src/analytics-records/recorder.repository.ts, docs/analytics.md):
// GET /v1/analytics/openings counted the rows of analytics_leads (one per lead) on every request, so its
// cost grew with the organization's leads. analytics_variants holds, per profile and opening variant, the
// leads first sent that variant and how many of them replied, qualified, booked and opted out, added by
// the fold like the other rollups. Backfilled here from analytics_leads, which held exactly that; the
// index the report read analytics_leads by goes.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('analytics_variants')
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('profile', 'text', (c) => c.notNull())
    .addColumn('variant', 'text', (c) => c.notNull())
    .addColumn('sent', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('replied', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('qualified', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('booked', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('opted_out', 'integer', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('analytics_variants_pk', ['organization_id', 'profile', 'variant'])
    .execute();
  await sql`insert into analytics_variants (organization_id, profile, variant, sent, replied, qualified, booked, opted_out)
    select organization_id, variant_profile, variant, count(*), count(replied_at), count(qualified_at),
      count(booked_at), count(opted_out_at)
    from analytics_leads where variant is not null and variant_profile is not null
    group by organization_id, variant_profile, variant`.execute(db);
  // Its only reader was the openings report: no longer worth a write per variant assignment.
  await db.schema.dropIndex('analytics_leads_variant_idx').execute();
  await quarterRows(db);
  await pendingQuarters(db, 'add');
}

/** A month's period (`2026-05`), not a quarter's (`2026-Q2`, the same length). */
const MONTH = sql`length(period) = 7 and substr(period, 6, 1) <> 'Q'`;
/** The quarter of a month's period, `YYYY-Qn`. */
const QUARTER = sql`substr(period, 1, 5) || 'Q' || cast((cast(substr(period, 6, 2) as integer) + 2) / 3 as text)`;

/**
 * Quarter rows (`2026-Q2`) beside the month rows of every rollup: each is the sum of its months' rows, as
 * the recorder now writes them (cells, periodsOf), so a report reads a whole quarter as one period
 * (analytics.service.ts foldQuarters): a year reads four quarters' rows instead of twelve months' of them.
 */
async function quarterRows(db: Kysely<any>): Promise<void> {
  // A down() leaves none; deleting them anyway keeps a re-run from adding a quarter's months twice.
  await deleteQuarterRows(db);
  await sql`insert into analytics_rollups (organization_id, dim, period, value, leads, contacted, delivered, replied,
      hot, qualified, booked, opted_out, failed)
    select organization_id, dim, ${QUARTER}, value, sum(leads), sum(contacted), sum(delivered), sum(replied),
      sum(hot), sum(qualified), sum(booked), sum(opted_out), sum(failed)
    from analytics_rollups where ${MONTH} group by organization_id, dim, ${QUARTER}, value`.execute(db);
  await sql`insert into analytics_latency (organization_id, dim, period, value, kind, bucket, count)
    select organization_id, dim, ${QUARTER}, value, kind, bucket, sum(count)
    from analytics_latency where ${MONTH} group by organization_id, dim, ${QUARTER}, value, kind, bucket`.execute(db);
  await sql`insert into analytics_numbers (organization_id, period, sending_number_id, sent, delivered, failed)
    select organization_id, ${QUARTER}, sending_number_id, sum(sent), sum(delivered), sum(failed)
    from analytics_numbers where ${MONTH} group by organization_id, ${QUARTER}, sending_number_id`.execute(db);
  await sql`insert into analytics_errors (organization_id, period, sending_number_id, code, class, count)
    select organization_id, ${QUARTER}, sending_number_id, code, max(class), sum(count)
    from analytics_errors where ${MONTH} group by organization_id, ${QUARTER}, sending_number_id, code`.execute(db);
}

const PERIODIC = ['analytics_rollups', 'analytics_latency', 'analytics_numbers', 'analytics_errors'] as const;

async function deleteQuarterRows(db: Kysely<any>): Promise<void> {
  for (const table of PERIODIC)
    await sql`delete from ${sql.table(table)} where length(period) = 7 and substr(period, 6, 1) = 'Q'`.execute(db);
}

type Cell = Record<string, unknown>;
const isQuarter = (period: unknown): boolean => typeof period === 'string' && /^\d{4}-Q[1-4]$/.test(period);
const isMonth = (period: unknown): boolean => typeof period === 'string' && /^\d{4}-\d{2}$/.test(period);
const quarterOfMonth = (month: string): string =>
  `${month.slice(0, 4)}-Q${Math.floor((Number(month.slice(5, 7)) + 2) / 3)}`;

/** Pending rows rewritten per round trip (their cells are JSON, rewritten here rather than in SQL). */
const PENDING_BATCH = 1000;

/**
 * Counts queued in analytics_pending (pending.repository.ts) name the cells the fold adds them to. Those
 * the older recorder queued name a day and a month but no quarter: folded as they are, a quarter row would
 * miss them and a whole-quarter report would read lower than the same range by months. `add` gives every
 * month cell its quarter's cell beside it; `strip` takes quarter cells out, since the older fold would
 * upsert them into quarter rows its reports never read and a later up() would count twice.
 */
async function pendingQuarters(db: Kysely<any>, mode: 'add' | 'strip'): Promise<void> {
  let after: number | string = -1;
  for (;;) {
    const rows: { id: number | string; cells: string }[] = await db
      .selectFrom('analytics_pending')
      .select(['id', 'cells'])
      .where('target', 'in', PERIODIC)
      .where('id', '>', after)
      .orderBy('id')
      .limit(PENDING_BATCH)
      .execute();
    if (rows.length === 0) return;
    const changed: { id: number | string; cells: string }[] = [];
    for (const row of rows) {
      const cells = JSON.parse(row.cells) as Cell[];
      const next = mode === 'add' ? withQuarters(cells) : cells.filter((c) => !isQuarter(c.period));
      if (next.length !== cells.length) changed.push({ id: row.id, cells: JSON.stringify(next) });
    }
    // One statement per batch: a statement per row costs about 0.3 ms a row on SQLite (16 s for 50k rows).
    if (changed.length > 0) {
      const values = sql.join(changed.map((c) => sql`(cast(${String(c.id)} as bigint), ${c.cells})`));
      await sql`with v (id, cells) as (values ${values})
        update analytics_pending set cells = v.cells from v where v.id = analytics_pending.id`.execute(db);
    }
    after = (rows[rows.length - 1] as { id: number | string }).id;
  }
}

/** The cells and, for each month cell whose quarter cell is not there yet, that quarter's cell. */
function withQuarters(cells: readonly Cell[]): Cell[] {
  const seen = new Set(cells.map((c) => JSON.stringify(c)));
  const out = [...cells];
  for (const cell of cells) {
    if (!isMonth(cell.period)) continue;
    const quarter = { ...cell, period: quarterOfMonth(String(cell.period)) };
    const key = JSON.stringify(quarter);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(quarter);
  }
  return out;
}

export async function down(db: Kysely<any>): Promise<void> {
  await deleteQuarterRows(db);
  // The older fold knows no analytics_variants (it would fail on the row, and the table is gone).
  await db.deleteFrom('analytics_pending').where('target', '=', 'analytics_variants').execute();
  await pendingQuarters(db, 'strip');
  await db.schema
    .createIndex('analytics_leads_variant_idx')
    .on('analytics_leads')
    .columns(['organization_id', 'variant_profile', 'variant'])
    .execute();
  await db.schema.dropTable('analytics_variants').execute();
}
