import type { Updateable } from 'kysely';
import { closeHandoffsOfLead } from '../handoff-records/handoffs.repository.js';
import { emitEvents } from '../events/outbox.repository.js';
import { scheduleOpeningMessage } from '../profiles/opening.js';
import { requireProfile } from '../profiles/profiles.service.js';
import { CHANNELS } from '../lead-records/channels.js';
import { suppressionsFor } from '../suppression-records/suppressions.repository.js';
import { isoNow } from '../platform/clock.js';
import { isUniqueViolation } from '../platform/db/errors.js';
import type { LeadsTable } from '../platform/db/schema.js';
import type { Deps } from '../platform/deps.js';
import { DomainError, NotFound, leadNotFound } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import { decodeCursor, page } from '../platform/http/pagination.js';
import { normalizePhone, phoneLookupCandidates } from '../platform/phone.js';
import { checkTimeZone } from '../platform/time-zone.js';
import { mergeInfo, parseInfo } from '../lead-records/additional-info.js';
import { newLeadRow, subscriptionColumns } from './new-lead.js';
import { recordLeadCreated } from './lead-created.js';
import { decodeFeedCursor, deletedLeadView, encodeFeedCursor, listedLead, toLeadViewOf } from './leads.mapper.js';
import * as repo from '../lead-records/leads.repository.js';
import { isLeadSearch, searchLeads } from './lead-search.service.js';
import { planFollowUpUpdate } from '../followups/followups.service.js';
import { instantOf } from '../platform/instant.js';
import { scrubDeletedRows } from '../platform/db/scrub.js';
import type { CreateLeadInput, LeadView, ListLeadsInput, UpdateLeadInput } from './leads.schemas.js';

const noChannel = () => new DomainError('no_channel');
const duplicatePhone = (phone: string) => new DomainError('duplicate_phone', { phone });

/** `maySend`: whether the caller may make a message go out (messages:write); without it a profile's opening is a 403 and no lead is made. */
export async function createLead(
  deps: Deps,
  organizationId: string,
  input: CreateLeadInput,
  maySend: boolean,
): Promise<string> {
  const phone = input.phone !== undefined ? normalizePhone(input.phone, deps.config.defaultCountry) : null;
  const email = input.email?.trim().toLowerCase() || null; // lower case: inbound email is matched by equality
  if (!phone && !email) throw noChannel();
  if (input.timeZone) checkTimeZone(input.timeZone);
  const at = isoNow(deps.clock);
  const id = newId();
  const profile = input.customerProfile ?? 'default';
  try {
    await deps.db.transaction().execute(async (trx) => {
      // A share lock keeps a concurrent delete of the profile from passing its "no lead uses it" check.
      const profileRow = await requireProfile(trx, organizationId, profile, 'share');
      const suppressed = await suppressionsFor(trx, organizationId, deps.digests, phone, email);
      const row = newLeadRow(
        {
          firstName: input.firstName,
          lastName: input.lastName,
          phone,
          email,
          customerProfile: profile,
          timeZone: input.timeZone,
          externalLeadId: input.externalLeadId,
          additionalInfo: input.additionalInfo ?? {},
          isAiOn: input.isAiOn !== false,
        },
        suppressed,
        at,
        id,
      );
      const stored = await repo.insertLead(trx, organizationId, row);
      // lead.created, assignment and analytics commit with the lead; a duplicate phone rolls them back.
      await recordLeadCreated(trx, organizationId, row, { source: 'api' }, at);
      // The profile's opening message, if any, commits with the lead (the gate decides at send time).
      await scheduleOpeningMessage(trx, organizationId, stored, profileRow, new Date(at), maySend);
    });
  } catch (err) {
    if (isUniqueViolation(err) && phone) throw duplicatePhone(phone);
    throw err;
  }
  return id;
}

export async function getLead(deps: Deps, organizationId: string, id: string): Promise<LeadView> {
  const row = await repo.findLeadView(deps.db, organizationId, id);
  if (!row) throw leadNotFound(id);
  return toLeadViewOf(row);
}

/**
 * A filter's time as stored (UTC, milliseconds). The schema's date-time
 * format admits a leap second (`23:59:60Z`), which JavaScript dates cannot
 * hold: that is the client's 400, not a 500.
 */
function sinceTime(field: string, value: string | undefined): string | undefined {
  if (!value) return undefined;
  return instantOf(value, () => new DomainError('invalid_time', { field })).toISOString();
}

/**
 * GET /v1/leads. With createdSince and/or updatedSince (the reference's
 * incremental listing) it is a change feed: ordered by the chosen timestamp
 * (updatedAt when updatedSince is given, else createdAt), then id, erased leads
 * included as removals. Without either (Parley's addition, docs/contract.md) it is
 * the organization's current leads in creation (id) order. A nextToken
 * continues the listing it came from.
 */
export async function listLeads(deps: Deps, organizationId: string, q: ListLeadsInput) {
  // The console's filters and orders (lead-search.service.ts); without them the listing below is unchanged.
  if (isLeadSearch(q)) return searchLeads(deps, organizationId, q);
  const limit = q.limit ?? 100;
  const resumed = q.nextToken ? decodeFeedCursor(q.nextToken) : undefined;
  // A token of the unfiltered listing cannot continue a filtered one.
  if (q.nextToken && !resumed && (q.createdSince || q.updatedSince)) throw new DomainError('invalid_cursor');
  const createdSince = resumed ? resumed.createdSince : sinceTime('createdSince', q.createdSince);
  const updatedSince = resumed ? resumed.updatedSince : sinceTime('updatedSince', q.updatedSince);
  if (!createdSince && !updatedSince) {
    const rows = await repo.listLeadViews(deps.db, organizationId, { afterId: decodeCursor(q.nextToken), limit });
    const { items, nextToken } = page(rows, limit);
    return { leads: items.map((row) => listedLead(toLeadViewOf(row))), nextToken };
  }
  const order = resumed?.order ?? (updatedSince ? 'updated' : 'created');
  const found = await repo.listLeadFeed(deps.db, organizationId, {
    order,
    createdSince,
    updatedSince,
    after: resumed?.after,
    limit,
  });
  const items = found.slice(0, limit);
  const last = items.at(-1);
  const nextToken =
    found.length > limit && last
      ? encodeFeedCursor({ order, createdSince, updatedSince, after: { at: last.at, id: last.id } })
      : null;
  return {
    leads: items.map((item) => (item.deleted ? deletedLeadView(item.row) : listedLead(toLeadViewOf(item.row)))),
    nextToken,
  };
}

export async function lookupLeadByPhone(deps: Deps, organizationId: string, rawPhone: string): Promise<string> {
  const candidates = phoneLookupCandidates(rawPhone, deps.config.defaultCountry);
  const [likeliest] = candidates;
  if (!likeliest) throw new DomainError('invalid_phone', { field: 'phone' });
  for (const phone of candidates) {
    const id = await repo.findLeadIdByPhone(deps.db, organizationId, phone);
    if (id) return id;
  }
  throw new NotFound('Lead', 'phone', likeliest);
}

export async function updateLead(
  deps: Deps,
  organizationId: string,
  id: string,
  input: UpdateLeadInput,
): Promise<void> {
  if (input.timeZone) checkTimeZone(input.timeZone);
  const phone =
    input.phone === undefined
      ? undefined
      : input.phone === null
        ? null
        : normalizePhone(input.phone, deps.config.defaultCountry);
  const email = input.email === undefined ? undefined : input.email?.trim().toLowerCase() || null;
  const at = isoNow(deps.clock);
  try {
    await deps.db.transaction().execute(async (trx) => {
      const lead = await repo.requireLead(trx, organizationId, id, true);
      const nextPhone = phone === undefined ? lead.phone : phone;
      const nextEmail = email === undefined ? lead.email : email;
      if (!nextPhone && !nextEmail) throw noChannel();
      const patch: Updateable<LeadsTable> = { updated_at: at };
      if (input.firstName !== undefined) patch.first_name = input.firstName;
      if (input.lastName !== undefined) patch.last_name = input.lastName;
      if (input.timeZone !== undefined) patch.time_zone = input.timeZone;
      if (input.externalLeadId !== undefined) patch.external_lead_id = input.externalLeadId;
      if (input.summary !== undefined) patch.summary = input.summary;
      if (input.isHot !== undefined) patch.is_hot = input.isHot ? 1 : 0;
      if (input.isQualified !== undefined) patch.is_qualified = input.isQualified ? 1 : 0;
      const phoneChanged = nextPhone !== lead.phone;
      const emailChanged = nextEmail !== lead.email;
      if (phoneChanged || emailChanged) {
        const suppressed = await suppressionsFor(trx, organizationId, deps.digests, nextPhone, nextEmail);
        const channels = CHANNELS.filter((c) => (c === 'email' ? emailChanged : phoneChanged));
        Object.assign(patch, { phone: nextPhone, email: nextEmail }, subscriptionColumns(suppressed, channels));
      }
      // followUpConfig / followUpStep: the timer resets to now + hours, as the reference describes (followups/cadence.ts).
      Object.assign(patch, await planFollowUpUpdate(trx, lead, input, new Date(at)));
      if (input.additionalInfo !== undefined) {
        const { merged, changes } = mergeInfo(parseInfo(lead.additional_info), input.additionalInfo);
        patch.additional_info = JSON.stringify(merged);
        if (Object.keys(changes).length > 0) {
          await emitEvents(trx, organizationId, at, [
            {
              type: 'lead.additionalInfo.updated',
              data: { leadId: id, externalLeadId: lead.external_lead_id, changes },
            },
          ]);
        }
      }
      await repo.updateLead(trx, organizationId, id, patch);
    });
  } catch (err) {
    if (isUniqueViolation(err) && phone) throw duplicatePhone(phone);
    throw err;
  }
}

/** Erasure; once committed, the files are scrubbed of the erased rows' older copies (platform/db/scrub.ts). */
export async function deleteLead(deps: Deps, organizationId: string, id: string): Promise<void> {
  await deps.db.transaction().execute(async (trx) => {
    await repo.requireLead(trx, organizationId, id, true);
    await repo.deleteLeadData(trx, organizationId, id, isoNow(deps.clock), deps.digests.keyed);
  });
  const scrub = await scrubDeletedRows(deps.db);
  if (!scrub.complete)
    deps.log.warn(
      { leadId: id },
      'erasure committed, but a reader kept the SQLite WAL from being truncated: older page images stay in it until the next erasure (docs/operations.md)',
    );
}

export async function setAi(deps: Deps, organizationId: string, id: string, on: boolean): Promise<void> {
  await deps.db.transaction().execute(async (trx) => {
    await repo.requireLead(trx, organizationId, id, true);
    await repo.updateLead(trx, organizationId, id, { is_ai_on: on ? 1 : 0, updated_at: isoNow(deps.clock) });
    // The AI back on: the person gives the lead back, its hand-off is over (src/handoffs/).
    if (on) await closeHandoffsOfLead(trx, organizationId, id, isoNow(deps.clock));
  });
}

/** An empty tagIds is a successful no-op (docs/contract.md); the lead must still exist. */
export async function removeTags(deps: Deps, organizationId: string, id: string, tagIds: string[]): Promise<number> {
  return deps.db.transaction().execute(async (trx) => {
    await repo.requireLead(trx, organizationId, id, true);
    const removed = await repo.deleteTags(trx, organizationId, id, [...new Set(tagIds)]);
    if (removed > 0) await repo.updateLead(trx, organizationId, id, { updated_at: isoNow(deps.clock) });
    return removed;
  });
}

/**
 * PUT /v1/leads/{leadId}/tags: the lead's tags become exactly these
 * organization tags (an empty list clears them). Every id must be a tag of
 * the organization, else 400 and nothing changes. Answers the lead's tags.
 */
export async function replaceTags(
  deps: Deps,
  organizationId: string,
  id: string,
  tagIds: string[],
): Promise<repo.TagDefinition[]> {
  const wanted = [...new Set(tagIds)];
  return deps.db.transaction().execute(async (trx) => {
    await repo.requireLead(trx, organizationId, id, true);
    const tags = await repo.findTagsByIds(trx, organizationId, wanted);
    if (tags.length < wanted.length) {
      const known = new Set(tags.map((t) => t.id));
      const unknown = wanted.filter((t) => !known.has(t));
      const shown = unknown.slice(0, 5).join(', ') + (unknown.length > 5 ? ` and ${unknown.length - 5} more` : '');
      throw new DomainError('unknown_tag', { ids: shown });
    }
    const at = isoNow(deps.clock);
    if (await repo.replaceLeadTags(trx, organizationId, id, tags, at))
      await repo.updateLead(trx, organizationId, id, { updated_at: at });
    return tags;
  });
}
