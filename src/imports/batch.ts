import { noteLeadsCreated } from '../analytics-records/recorder.repository.js';
import type { Updateable } from 'kysely';
import { eventsInsert, type OutboxEvent } from '../events/outbox.repository.js';
import { leadCreatedEvent } from '../events/payloads.js';
import { mergeInfo } from '../lead-records/additional-info.js';
import { subscriptionColumns } from '../leads/new-lead.js';
import { updateLead } from '../lead-records/leads.repository.js';
import type { AddressDigests } from '../platform/address-digest.js';
import { isUniqueViolation } from '../platform/db/errors.js';
import type { Db, LeadsTable } from '../platform/db/schema.js';
import type { Deps } from '../platform/deps.js';
import { requestOpening } from '../profiles/opening.js';
import { findProfileByName, type ProfileRow } from '../profile-records/profiles.repository.js';
import { CHANNELS } from '../lead-records/channels.js';
import { suppressionsForMany } from '../suppression-records/suppressions.repository.js';
import * as repo from './imports.repository.js';
import type { LaterRows } from './look-ahead.js';
import { resolveBatch, type Entry, type OnDuplicate } from './resolve.js';
import type { ImportedLead } from './rows.js';

export interface BatchOptions {
  onDuplicate: OnDuplicate;
  profile: string;
  startConversations: boolean;
  dryRun: boolean;
  /** Where counts and rejects are recorded (the imports row), if anywhere. */
  importId: string | null;
  /** What later rows of the file set (look-ahead.ts), when the file was read for it. */
  later?: LaterRows;
}

export interface BatchInput {
  valid: ImportedLead[];
  rejects: repo.NewReject[];
  /** Valid rows imported without a bad field, listed in the rejects file with their warnings. */
  warned?: repo.NewReject[];
  /** Keyed digests of the rows' addresses, made on the parsing thread (parse.ts); any address missing is digested here. */
  digests?: ReadonlyMap<string, string>;
}

export interface BatchResult extends repo.CountDeltas {
  openings: number;
}

/** A unique violation means another writer took an address between our read and our write: read again and retry. */
const ATTEMPTS = 3;

/** Whether a batch entry gets its subscription state read from the opt-outs: a new lead, or an address filled in. */
const readsSuppressions = (e: Entry) => e.isNew || e.filled.phone || e.filled.email;

/**
 * Sets the subscription columns of the channels of each new address from the
 * opt-outs recorded for it, as the API's create does (leads/new-lead.ts): one
 * lookup for the batch. A new lead starts subscribed, so with no opt-out among
 * the batch's addresses (the usual case) nothing changes.
 */
async function applySuppressions(
  deps: Deps,
  db: Db,
  organizationId: string,
  entries: Entry[],
  made: ReadonlyMap<string, string> | undefined,
): Promise<void> {
  const reading = entries.filter(readsSuppressions);
  if (reading.length === 0) return;
  const digests: AddressDigests = made
    ? { ...deps.digests, keyed: (a) => made.get(a) ?? deps.digests.keyed(a) }
    : deps.digests;
  const suppressed = await suppressionsForMany(
    db,
    organizationId,
    digests,
    reading.map((e) => e.lead),
  );
  reading.forEach((e, i) => {
    // biome-ignore lint/style/noNonNullAssertion: suppressionsForMany answers one map per lead passed, in order
    const found = suppressed[i]!;
    // A new lead was built subscribed; an address filled in takes its channels' state anew, as PATCH /v1/leads/{id} does.
    if (found.size === 0 && e.isNew) return;
    const channels = e.isNew ? CHANNELS : CHANNELS.filter((c) => (c === 'email' ? e.filled.email : e.filled.phone));
    Object.assign(e.lead, subscriptionColumns(found, channels));
  });
}

const UPDATABLE = [
  'first_name',
  'last_name',
  'time_zone',
  'external_lead_id',
  'phone',
  'email',
  'sms_status',
  'voice_status',
  'email_status',
  'sms_opt_out_source',
  'voice_opt_out_source',
  'email_opt_out_source',
] as const;

/** The changed leads' writes and their additionalInfo events (the same event PATCH /v1/leads/{id} emits). */
async function writeUpdates(
  db: Db,
  organizationId: string,
  entries: Entry[],
  before: Map<string, Entry['lead']>,
  at: string,
): Promise<void> {
  const events: OutboxEvent[] = [];
  for (const e of entries) {
    if (e.isNew || !e.changed) continue;
    // biome-ignore lint/style/noNonNullAssertion: an entry that is not new updates a lead of existing, and before maps all of them by id
    const old = before.get(e.lead.id)!;
    const patch: Updateable<LeadsTable> = { updated_at: at };
    for (const k of UPDATABLE) if (e.lead[k] !== old[k]) (patch as Record<string, unknown>)[k] = e.lead[k];
    const { merged, changes } = mergeInfo(e.infoBase, e.infoPatch);
    if (Object.keys(changes).length > 0) {
      patch.additional_info = JSON.stringify(merged);
      events.push({
        type: 'lead.additionalInfo.updated',
        data: { leadId: e.lead.id, externalLeadId: e.lead.external_lead_id, changes },
      });
    }
    await updateLead(db, organizationId, e.lead.id, patch);
  }
  for (let i = 0; i < events.length; i += 500)
    await eventsInsert(db, organizationId, at, events.slice(i, i + 500)).query.execute();
}

/**
 * The opening of each lead the batch created, and of each lead it matched
 * under `update` that never had one, through the profile's opening
 * (profiles/opening.ts): a message and its `message.send` job (or the agent's
 * `ai.opening`), judged by the compliance gate when it runs. A lead with the
 * AI off is not greeted, as on create.
 */
async function scheduleOpenings(db: Db, organizationId: string, entries: Entry[], now: Date): Promise<number> {
  const candidates = entries.filter((e) => !e.untouched && e.lead.is_ai_on === 1);
  const greeted = await repo.leadsWithOpenings(
    db,
    organizationId,
    candidates.filter((e) => !e.isNew).map((e) => e.lead.id),
  );
  const profiles = new Map<string, ProfileRow | undefined>();
  let made = 0;
  for (const e of candidates) {
    if (greeted.has(e.lead.id)) continue;
    const name = e.lead.customer_profile;
    if (!profiles.has(name)) profiles.set(name, await findProfileByName(db, organizationId, name));
    const profile = profiles.get(name);
    if (!profile) continue;
    const result = await requestOpening(db, organizationId, e.lead, profile, now, now);
    if (result.status !== 'not_sent') made += 1;
  }
  return made;
}

async function writeBatch(
  deps: Deps,
  trx: Db,
  organizationId: string,
  input: BatchInput,
  o: BatchOptions,
  now: Date,
): Promise<BatchResult> {
  const at = now.toISOString();
  const keys = { phones: [] as string[], emails: [] as string[], externalIds: [] as string[] };
  for (const r of input.valid) {
    if (r.phone) keys.phones.push(r.phone);
    if (r.email) keys.emails.push(r.email);
    if (r.externalLeadId) keys.externalIds.push(r.externalLeadId);
  }
  const existing = await repo.findLeadsByKeys(trx, organizationId, keys, !o.dryRun);
  const before = new Map(existing.map((l) => [l.id, l]));
  const { outcomes, entries } = resolveBatch(organizationId, input.valid, existing, {
    onDuplicate: o.onDuplicate,
    profile: o.profile,
    at,
    later: o.later,
  });
  const counts: BatchResult = {
    total: input.valid.length + input.rejects.length,
    created: 0,
    updated: 0,
    skipped: 0,
    rejected: input.rejects.length,
    warned: input.warned?.length ?? 0,
    openings: 0,
  };
  for (const outcome of outcomes) counts[outcome] += 1;
  if (o.dryRun) return counts;
  await applySuppressions(deps, trx, organizationId, entries, input.digests);
  const created = entries.filter((e) => e.isNew);
  for (const e of created) e.lead.additional_info = JSON.stringify(mergeInfo({}, e.infoPatch).merged);
  await repo.insertLeads(
    trx,
    organizationId,
    created.map((e) => {
      const { organization_id: _, ...row } = e.lead;
      return row;
    }),
  );
  // lead.created, one per new lead, with the batch: multi-row inserts of 500, never a statement per lead.
  const createdEvents = created.map((e) => leadCreatedEvent(e.lead, { source: 'import', importId: o.importId }));
  for (let i = 0; i < createdEvents.length; i += 500)
    await eventsInsert(trx, organizationId, at, createdEvents.slice(i, i + 500)).query.execute();
  await noteLeadsCreated(
    trx,
    organizationId,
    created.map((e) => e.lead),
    o.importId ? `import:${o.importId}` : 'import',
  );
  await writeUpdates(trx, organizationId, entries, before, at);
  if (o.startConversations) counts.openings = await scheduleOpenings(trx, organizationId, entries, now);
  return counts;
}

/**
 * One batch, atomically: its leads, their events and openings, its rejects
 * and the import's counts commit together or not at all, so an import cut off
 * anywhere and run again ends as one clean run (the rows already committed
 * are found by the dedupe). A dry run reads and counts, and records only its
 * report.
 */
export async function runBatch(
  deps: Deps,
  organizationId: string,
  input: BatchInput,
  o: BatchOptions,
): Promise<BatchResult> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await deps.db.transaction().execute(async (trx) => {
        const now = deps.clock.now();
        const result = await writeBatch(deps, trx, organizationId, input, o, now);
        if (o.importId) {
          const keyed = (a: string) => input.digests?.get(a) ?? deps.digests.keyed(a);
          const listed = input.warned?.length ? [...input.rejects, ...input.warned] : input.rejects;
          const keys = listed.flatMap((r) => r.addresses.map((a) => ({ row_number: r.row_number, digest: keyed(a) })));
          await repo.insertRejects(trx, organizationId, o.importId, listed, keys);
          await repo.addImportCounts(trx, organizationId, o.importId, result, now.toISOString());
        }
        return result;
      });
    } catch (err) {
      if (!isUniqueViolation(err) || attempt >= ATTEMPTS) throw err;
    }
  }
}
