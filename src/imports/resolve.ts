import type { LeadRow } from '../lead-records/leads.repository.js';
import { parseInfo } from '../lead-records/additional-info.js';
import { newLeadRow } from '../leads/new-lead.js';
import type { LaterRows } from './look-ahead.js';
import type { ImportedLead } from './rows.js';

export type OnDuplicate = 'skip' | 'update';
export type Outcome = 'created' | 'updated' | 'skipped';

/** A lead a batch touches: one it creates, or one that exists, with what the batch's rows change on it. */
export interface Entry {
  lead: LeadRow;
  isNew: boolean;
  /** additionalInfo as stored before this batch (empty for a new lead). */
  infoBase: Record<string, unknown>;
  /** additionalInfo keys the batch's rows set (merged over infoBase when written). */
  infoPatch: Record<string, unknown>;
  /** An existing lead some row changed (a new lead is written whole). */
  changed: boolean;
  /** An address this batch gave an existing lead that had none: its channels' subscription state is read anew. */
  filled: { phone: boolean; email: boolean };
  /** Matched under `skip`: left exactly as it is. */
  untouched: boolean;
}

/** A new lead's row as the API's create writes it (leads/new-lead.ts); its subscriptions are read from the opt-outs before it is written (batch.ts). */
function newLead(organizationId: string, r: ImportedLead, profile: string, at: string): LeadRow {
  const row = newLeadRow(
    {
      firstName: r.firstName,
      lastName: r.lastName,
      phone: r.phone,
      email: r.email,
      customerProfile: profile,
      timeZone: r.timeZone,
      externalLeadId: r.externalLeadId,
      additionalInfo: {},
      isAiOn: true,
    },
    NONE,
    at,
  );
  return { ...row, organization_id: organizationId } as LeadRow;
}

const NONE = new Map<never, string>();
const NOTHING: ReadonlySet<string> = new Set();

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * Applies a row to a lead it matched (policy `update`): given fields are set;
 * phone, email and externalLeadId only fill a blank (an import never moves an
 * address or an identity from one lead to another), and an email or external
 * id only when no other lead holds it (else which lead it finds would change);
 * additionalInfo keys are merged. Answers whether anything changed.
 */
function applyRow(
  e: Entry,
  r: ImportedLead,
  mayFill: { email: boolean; external: boolean },
  later: ReadonlySet<string>,
): { changed: boolean; phone: boolean; email: boolean } {
  const lead = e.lead;
  let changed = false;
  const set = <K extends 'first_name' | 'last_name' | 'time_zone' | 'external_lead_id' | 'phone' | 'email'>(
    k: K,
    v: LeadRow[K],
  ) => {
    if (lead[k] !== v) {
      lead[k] = v;
      changed = true;
    }
  };
  // A field a later row of the file sets on this lead is left to it (the last value wins, in whichever batch).
  if (!later.has('firstName')) set('first_name', r.firstName);
  if (r.lastName !== undefined && !later.has('lastName')) set('last_name', r.lastName);
  if (r.timeZone !== undefined && !later.has('timeZone')) set('time_zone', r.timeZone);
  if (r.externalLeadId !== undefined && lead.external_lead_id === null && mayFill.external)
    set('external_lead_id', r.externalLeadId);
  const phone = r.phone !== null && lead.phone === null;
  const email = r.email !== null && lead.email === null && mayFill.email;
  if (phone) set('phone', r.phone);
  if (email) set('email', r.email);
  for (const [key, value] of Object.entries(r.info)) {
    if (later.has(`info:${key}`)) continue;
    const current = Object.prototype.hasOwnProperty.call(e.infoPatch, key)
      ? e.infoPatch[key]
      : Object.prototype.hasOwnProperty.call(e.infoBase, key)
        ? e.infoBase[key]
        : undefined;
    if (!same(current, value)) {
      e.infoPatch[key] = value;
      changed = true;
    }
  }
  return { changed, phone, email };
}

/**
 * Decides each valid row of a batch against the leads that exist (given in
 * id order) and the rows before it in the batch. Matching: phone first, then
 * email, then externalLeadId; the first key that finds a lead decides, so a
 * row whose phone is lead A's and whose email is lead B's updates A (a phone
 * is unique in an organization, an email is not). Among several leads with
 * one email or external id, the oldest.
 *
 * A row joins a lead found by a later key only when it agrees with it: a
 * lead found by email that has another phone, or by external id that has
 * another phone or email, is someone else (a shared family email), and the
 * row becomes a new lead. That keeps a re-run stable: every row finds again
 * the lead it went to (by its phone, which that lead then holds), whichever
 * leads later rows created, so a file imported twice, or cut off and run
 * again, ends as one clean run. Answers the outcome of each row.
 */
export function resolveBatch(
  organizationId: string,
  rows: readonly ImportedLead[],
  existing: readonly LeadRow[],
  opts: { onDuplicate: OnDuplicate; profile: string; at: string; later?: LaterRows },
): { outcomes: Outcome[]; entries: Entry[] } {
  // Emails some row of this batch gives: for them every lead holding one was read, so the oldest is known.
  const emailsRead = new Set(rows.map((r) => r.email));
  /**
   * The fields later rows of the file set on an existing lead: the rows of its
   * phone, and (when it is the oldest lead holding its email) the rows without
   * a phone that give its email, which join it too (look-ahead.ts's keys). A
   * lead created by this batch takes every row's fields: its rows are all in
   * this run.
   */
  const laterFields = (e: Entry, r: ImportedLead): ReadonlySet<string> => {
    if (!opts.later || r.row === undefined || e.isNew) return NOTHING;
    const { phone, email } = e.lead;
    const fields = phone !== null ? opts.later.fieldsAfter(`p:${phone}`, r.row) : [];
    if (email !== null && emailsRead.has(email) && byEmail.get(email) === e)
      fields.push(...opts.later.fieldsAfter(`e:${email}`, r.row));
    return fields.length === 0 ? NOTHING : new Set(fields);
  };
  const byPhone = new Map<string, Entry>();
  const byEmail = new Map<string, Entry>();
  const byExternal = new Map<string, Entry>();
  const entries: Entry[] = [];
  const remember = (e: Entry) => {
    const { phone, email, external_lead_id: ext } = e.lead;
    if (phone !== null && !byPhone.has(phone)) byPhone.set(phone, e);
    if (email !== null && !byEmail.has(email)) byEmail.set(email, e);
    if (ext !== null && !byExternal.has(ext)) byExternal.set(ext, e);
  };
  for (const lead of existing) {
    const e: Entry = {
      lead: { ...lead },
      isNew: false,
      infoBase: parseInfo(lead.additional_info),
      infoPatch: {},
      changed: false,
      filled: { phone: false, email: false },
      untouched: true,
    };
    entries.push(e);
    remember(e);
  }
  const outcomes = rows.map((r): Outcome => {
    const agrees = (e: Entry | undefined, email: boolean) =>
      e && (r.phone === null || e.lead.phone === null) && (!email || r.email === null || e.lead.email === null)
        ? e
        : undefined;
    const match =
      (r.phone !== null ? byPhone.get(r.phone) : undefined) ??
      agrees(r.email !== null ? byEmail.get(r.email) : undefined, false) ??
      agrees(r.externalLeadId !== undefined ? byExternal.get(r.externalLeadId) : undefined, true);
    if (!match) {
      const e: Entry = {
        lead: newLead(organizationId, r, opts.profile, opts.at),
        isNew: true,
        infoBase: {},
        infoPatch: { ...r.info },
        changed: false,
        filled: { phone: false, email: false },
        untouched: false,
      };
      entries.push(e);
      remember(e);
      return 'created';
    }
    if (opts.onDuplicate === 'skip') return 'skipped';
    match.untouched = false;
    const applied = applyRow(
      match,
      r,
      {
        email: r.email === null || !byEmail.has(r.email),
        external: r.externalLeadId === undefined || !byExternal.has(r.externalLeadId),
      },
      laterFields(match, r),
    );
    if (!applied.changed) return 'skipped';
    if (!match.isNew) {
      match.changed = true;
      match.filled.phone ||= applied.phone;
      match.filled.email ||= applied.email;
    }
    remember(match);
    return 'updated';
  });
  return { outcomes, entries };
}
