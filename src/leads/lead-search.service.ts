import { getCountryCallingCode, type CountryCode } from 'libphonenumber-js';
import type { Deps } from '../platform/deps.js';
import { DomainError } from '../platform/errors.js';
import { normalizePhone } from '../platform/phone.js';
import { decodeSearchCursor, encodeSearchCursor, listedLead, toLeadViewOf } from './leads.mapper.js';
import {
  countLeadViews,
  searchLeadViews,
  type LeadSearchFilter,
  type LeadSearchRow,
  type SearchOptions,
  type SearchTerm,
} from './lead-search.repository.js';
import type { LeadSearchInput } from './lead-search.schemas.js';
import { foldedText } from '../platform/db/folded-text.js';

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
  // biome-ignore lint/style/noNonNullAssertion: split() always answers at least one element
  if (words.length > 1) term.names.push({ first: words[0]!, last: words.slice(1).join(' ') });
  return term;
}

/** /v1's lastMessage.text: an email's subject folded before its body, as it always read (platform/db/folded-text.ts). */
function toSearchView(row: LeadSearchRow) {
  const lastMessage = row.lm_at
    ? {
        text: foldedText({ text: row.lm_text ?? '', subject: row.lm_subject }).slice(0, 200),
        // biome-ignore lint/style/noNonNullAssertion: the last message's columns come from one joined row: lm_at set means the message exists
        direction: row.lm_direction!,
        // biome-ignore lint/style/noNonNullAssertion: the last message's columns come from one joined row: lm_at set means the message exists
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
  const { rows, nextToken } = await searchRows(deps, organizationId, q, filterOf(deps, q, {}), options);
  return { leads: rows.map(toSearchView), nextToken };
}

type SearchInput = LeadSearchInput & { limit?: number; nextToken?: string };

function filterOf(deps: Pick<Deps, 'config'>, q: SearchInput, more: Partial<LeadSearchFilter>): LeadSearchFilter {
  if (q.search !== undefined && q.search.trim() === '') throw new DomainError('invalid_search');
  return {
    search: q.search === undefined ? undefined : readSearch(q.search, deps.config.defaultCountry),
    aiOn: q.aiOn,
    tag: q.tag,
    profile: q.profile,
    hasMessages: q.hasMessages,
    needsAttention: q.needsAttention,
    ...more,
  };
}

/** One page of rows (limit+1 read to know whether more follow) and the token of the next. */
async function searchRows(
  deps: Pick<Deps, 'db' | 'config'>,
  organizationId: string,
  q: SearchInput,
  filter: LeadSearchFilter,
  options: SearchOptions,
): Promise<{ rows: LeadSearchRow[]; nextToken: string | null }> {
  const limit = q.limit ?? 100;
  const sort = q.sort ?? 'created';
  const rows = await searchLeadViews(
    deps.db,
    organizationId,
    filter,
    decodeSearchCursor(sort, q.nextToken),
    limit,
    options,
  );
  const items = rows.slice(0, limit);
  const last = items.at(-1);
  return {
    rows: items,
    nextToken:
      rows.length > limit && last ? encodeSearchCursor(sort, { id: last.id, activityAt: last.last_activity_at }) : null,
  };
}

/**
 * The console inbox (console-api/inbox.routes.ts): conversations only (leads
 * with at least one message), newest activity first, `lastChannel` the channel
 * of the latest message, with the true number of them under the same filters.
 * lastMessage keeps an email's subject apart from its body.
 */
export async function searchConversations(
  deps: Pick<Deps, 'db' | 'config'>,
  organizationId: string,
  q: Omit<SearchInput, 'sort' | 'hasMessages'> & { lastChannel?: 'sms' | 'voice' | 'email' },
  options: SearchOptions = {},
) {
  const more = { hasMessages: true, lastChannel: q.lastChannel };
  const input = { ...q, sort: 'lastActivity' as const };
  // One filter for both: its search condition is probed once (lead-search.repository.ts).
  const filter = filterOf(deps, input, more);
  const [{ rows, nextToken }, total] = await Promise.all([
    searchRows(deps, organizationId, input, filter, options),
    countLeadViews(deps.db, organizationId, filter, options),
  ]);
  return {
    conversations: rows.map((row) => {
      const view = toSearchView(row);
      const lastMessage = view.lastMessage && { ...view.lastMessage, text: row.lm_text ?? '', subject: row.lm_subject };
      return { ...view, lastMessage };
    }),
    total,
    nextToken,
  };
}
