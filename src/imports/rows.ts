import { DomainError } from '../platform/errors.js';
import { normalizePhone } from '../platform/phone.js';
import { isEmailAddress } from '../platform/email-address.js';
import { checkTimeZone } from '../platform/time-zone.js';
import type { ColumnPlan } from './columns.js';

/** A valid row, normalised as POST /v1/leads/create would store it. */
export interface ImportedLead {
  firstName: string;
  lastName: string | undefined;
  phone: string | null;
  email: string | null;
  timeZone: string | undefined;
  externalLeadId: string | undefined;
  /** Columns without a lead field, keyed by header; empty cells left out. */
  info: Record<string, string>;
  /** The row's number in the file (the header is 1), which the look-ahead knows it by (look-ahead.ts). */
  row?: number;
}

/** A valid row may carry warnings: fields left out because they were not valid (`invalidFields: drop`). */
export type RowOutcome = { ok: true; lead: ImportedLead; warnings: string[] } | { ok: false; reason: string };

/**
 * What a row with a usable lead and one bad field becomes: `drop` imports the
 * lead without the field and says so in the rejects file's warnings column;
 * `reject` rejects the whole row, as a create through the API would.
 */
export type InvalidFields = 'drop' | 'reject';

/** The limits of CreateLeadBody (leads.schemas.ts), applied to a cell. */
const MAX = { firstName: 200, lastName: 200, phone: 40, email: 320, timeZone: 64, externalLeadId: 200 } as const;
/** One cell of additionalInfo; a row's whole text is already bounded by the parser's record size. */
const MAX_INFO_VALUE = 10_000;

const fail = (reason: string): RowOutcome => ({ ok: false, reason });

/**
 * Zones already judged: checking one builds an Intl.DateTimeFormat (about
 * 0.3 ms, more than the rest of a row), and a file names a handful of zones
 * in a million rows. Bounded, so a file of junk zones cannot grow it.
 */
const zoneVerdicts = new Map<string, boolean>();
function knownZone(zone: string): boolean {
  const known = zoneVerdicts.get(zone);
  if (known !== undefined) return known;
  let ok = true;
  try {
    checkTimeZone(zone);
  } catch (err) {
    if (!(err instanceof DomainError)) throw err;
    ok = false;
  }
  if (zoneVerdicts.size < 1000) zoneVerdicts.set(zone, ok);
  return ok;
}

/**
 * Validates one record against the column plan, as the API validates a
 * create: a first name, a phone or an email, each well formed. Empty cells
 * are "not given". The reason (and each warning) is a sentence for the rejects file.
 */
export function readRow(
  plan: ColumnPlan,
  record: readonly string[],
  defaultCountry: string,
  invalidFields: InvalidFields = 'drop',
): RowOutcome {
  const given: Partial<Record<keyof typeof MAX, string>> = {};
  const info: Record<string, string> = Object.create(null) as Record<string, string>;
  for (let i = 0; i < plan.targets.length; i++) {
    const value = (record[i] ?? '').trim();
    if (value === '') continue;
    // biome-ignore lint/style/noNonNullAssertion: hot path (benchmarked); i < plan.targets.length by the loop's condition
    const target = plan.targets[i]!;
    if ('field' in target) given[target.field] = value;
    else if ('info' in target) {
      if (value.length > MAX_INFO_VALUE)
        return fail(`column ${target.info} is longer than ${MAX_INFO_VALUE} characters`);
      info[target.info] = value;
    }
  }
  if (record.length > plan.targets.length && record.slice(plan.targets.length).some((v) => v.trim() !== '')) {
    return fail(`the row has ${record.length} values but the header has ${plan.targets.length} columns`);
  }
  for (const field of Object.keys(MAX) as (keyof typeof MAX)[]) {
    const v = given[field];
    if (v !== undefined && v.length > MAX[field]) return fail(`${field} is longer than ${MAX[field]} characters`);
  }
  if (!given.firstName) return fail('firstName is missing (every lead needs a first name)');
  if (!given.phone && !given.email) return fail('the row has neither a phone nor an email (a lead needs one of them)');
  const warnings: string[] = [];
  // A bad field is dropped (with a warning) only when the lead keeps a way to reach it; else the row is rejected.
  const bad = (reason: string, keepsAddress: boolean): RowOutcome | undefined => {
    if (invalidFields === 'reject' || !keepsAddress) return fail(reason);
    warnings.push(`${reason}: imported without it`);
    return undefined;
  };
  const emailOk = given.email !== undefined && isEmailAddress(given.email);
  let phone: string | null = null;
  if (given.phone) {
    try {
      phone = normalizePhone(given.phone, defaultCountry);
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      const refused = bad(`phone "${given.phone}" is not a valid phone number`, emailOk);
      if (refused) return refused;
    }
  }
  // Lower case: inbound email is matched by equality (leads.service.ts does the same).
  let email: string | null = null;
  if (given.email) {
    if (emailOk) email = given.email.toLowerCase();
    else {
      const refused = bad(`email "${given.email}" is not a valid email address`, phone !== null);
      if (refused) return refused;
    }
  }
  let timeZone = given.timeZone;
  if (timeZone && !knownZone(timeZone)) {
    // Without it the lead's zone is found from its number or the organization's, as for a lead created without one.
    const refused = bad(`timeZone "${timeZone}" is not a known IANA time zone (like America/Chicago)`, true);
    if (refused) return refused;
    timeZone = undefined;
  }
  return {
    ok: true,
    lead: {
      firstName: given.firstName,
      lastName: given.lastName,
      phone,
      email,
      timeZone,
      externalLeadId: given.externalLeadId,
      info: { ...info },
    },
    warnings,
  };
}

/** An address written anywhere in a cell: an email, or a run of phone characters long enough to be a number. */
const EMAIL_IN_TEXT = /[a-z0-9!#$%&'*+/=?^_`{|}~.-]+@[a-z0-9-]+(?:\.[a-z0-9-]+)+/gi;
const PHONE_IN_TEXT = /\+?\d[\d\s().\-/]{5,30}\d/g;

/**
 * Every address a rejected row names, in any of its cells (a misaligned row
 * puts a phone under "notes"), normalised as a lead holds it: emails lower
 * case, phones in E.164 as the import reads them. Keyed digests of these let
 * an erasure find the rejected rows that quote the lead (imports/rejects.repository.ts).
 */
export function addressesIn(record: readonly string[], defaultCountry: string): string[] {
  const found = new Set<string>();
  for (const cell of record) {
    for (const m of cell.match(EMAIL_IN_TEXT) ?? []) found.add(m.toLowerCase());
    for (const m of cell.match(PHONE_IN_TEXT) ?? []) {
      try {
        found.add(normalizePhone(m, defaultCountry));
      } catch (err) {
        if (!(err instanceof DomainError)) throw err;
      }
    }
  }
  return [...found];
}
