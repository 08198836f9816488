import { getCountryCallingCode, type CountryCode } from 'libphonenumber-js';
import type { Deps } from '../platform/deps.js';
import { DomainError } from '../platform/errors.js';
import { normalizePhone } from '../platform/phone.js';
import { decodeSearchCursor, encodeSearchCursor, listedLead, toLeadViewOf } from './leads.mapper.js';
import { searchLeadViews, type LeadSearchRow, type SearchOptions, type SearchTerm } from './lead-search.repository.js';
import type { LeadSearchInput } from './lead-search.schemas.js';

const PHONE_LIKE = /^\+?[\d\s().-]+$/;

/** Whether a GET /v1/leads query uses any of the console's parameters (else the listing is exactly the original one). */
export const isLeadSearch = (q: LeadSearchInput): boolean =>
  q.sort !== undefined ||
  q.search !== undefined ||
  q.aiOn !== undefined ||
  q.tag !== undefined ||
  q.profile !== undefined ||
  q.hasMessages !== undefined ||
  q.needsAttention !== undefined;

/** How `search` is read: digits are a phone (or its beginning), an @ an email, words names; an exact externalLeadId always counts. */
export function readSearch(text: string, defaultCountry: string): SearchTerm {
  const raw = text.trim();
  const lower = raw.toLowerCase();
  const term: SearchTerm = { phonePrefixes: [], names: [], externalLeadId: raw };
  const digits = raw.replace(/\D/g, '');
  if (PHONE_LIKE.test(raw) && digits.length >= 3) {
    const prefixes = new Set([`+${digits}`]);
    if (!raw.startsWith('+')) {
      prefixes.add(`+${getCountryCallingCode(defaultCountry as CountryCode)}${digits.replace(/^0+/, '')}`);
      try {
        prefixes.add(normalizePhone(raw, defaultCountry));
      } catch {
        /* not a whole number: the prefixes stand */
      }
    }
    term.phonePrefixes = [...prefixes];
    return term;
  }
  term.emailPrefix = lower;
  if (lower.includes('@')) return term;
  const words = lower.split(/\s+/);
  term.names.push({ first: lower });
  term.lastNamePrefix = lower;
  if (words.length > 1) term.names.push({ first: words[0]!, last: words.slice(1).join(' ') });
  return term;
}

function toSearchView(row: LeadSearchRow) {
  const lastMessage = row.lm_at
    ? {
        text: row.lm_text ?? '',
        direction: row.lm_direction!,
        channel: row.lm_channel!,
        at: row.lm_at,
        isAiGenerated: Number(row.lm_ai) === 1,
        purpose: row.lm_purpose ?? 'conversation',
        status: row.lm_status ?? 'received',
      }
    : null;
  return { ...listedLead(toLeadViewOf(row)), lastMessage, needsAttention: Number(row.needs_attention) === 1 };
}

/**
 * GET /v1/leads with the console's parameters: filters, a name/phone/email
 * search, oldest first or newest activity first. A nextToken continues the
 * same query (send the same parameters again).
 */
export async function searchLeads(
  deps: Pick<Deps, 'db' | 'config'>,
  organizationId: string,
  q: LeadSearchInput & { limit?: number; nextToken?: string; createdSince?: string; updatedSince?: string },
  options: SearchOptions = {},
) {
  if (q.createdSince || q.updatedSince) {
    throw new DomainError('invalid_combination');
  }
  const limit = q.limit ?? 100;
  const sort = q.sort ?? 'created';
  const search = q.search === undefined ? undefined : readSearch(q.search, deps.config.defaultCountry);
  if (q.search !== undefined && q.search.trim() === '') throw new DomainError('invalid_search');
  const rows = await searchLeadViews(
    deps.db,
    organizationId,
    {
      search,
      aiOn: q.aiOn,
      tag: q.tag,
      profile: q.profile,
      hasMessages: q.hasMessages,
      needsAttention: q.needsAttention,
    },
    decodeSearchCursor(sort, q.nextToken),
    limit,
    options,
  );
  const items = rows.slice(0, limit);
  const last = items.at(-1);
  return {
    leads: items.map(toSearchView),
    nextToken:
      rows.length > limit && last ? encodeSearchCursor(sort, { id: last.id, activityAt: last.last_activity_at }) : null,
  };
}
