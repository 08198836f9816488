import { useRef, useState } from 'preact/hooks';
import { get, query } from '../api';
import { useLiveEvents } from '../events';
import { authorOf, leadName, when } from '../format';
import { Link } from '../router';
import type { Lead } from '../types';
import { LoadStatus, Page, useLoad } from '../ui';
import { FilterForm, NO_FILTERS, filterQuery, type Filters } from './lead-filters';
import { ReachBadges } from '../reach';
import { UserText } from '../user-text';

interface InboxData {
  leads: Lead[];
  reads: Record<string, string>;
  /** How many conversations pass the filters, shown or not. */
  total: number;
  /** Where the next page starts; null when every conversation is shown. */
  nextToken: string | null;
}

/** Conversations per page: the first page, and each "Show more". */
const PAGE = 100;
const READS_AT_ONCE = 500;

/**
 * The conversations (leads with at least one message), newest activity first, `pages` pages of them: a reload
 * (a live event) keeps as many rows as the operator has opened. The server counts them under the same filters.
 */
async function loadInbox(f: Filters, pages: number): Promise<InboxData> {
  const leads: Lead[] = [];
  let nextToken: string | null = null;
  let total = 0;
  for (let i = 0; i < pages; i++) {
    const page: { conversations: Lead[]; total: number; nextToken: string | null } = await get(
      `/console/api/inbox${query({ limit: PAGE, nextToken: nextToken ?? undefined, channel: f.channel || undefined, ...filterQuery(f) })}`,
    );
    leads.push(...page.conversations);
    total = page.total;
    nextToken = page.nextToken;
    if (!nextToken) break;
  }
  // The read markers, 500 leads a request (the most one takes): past five pages it takes several.
  const reads: Record<string, string> = {};
  for (let i = 0; i < leads.length; i += READS_AT_ONCE) {
    const chunk = leads.slice(i, i + READS_AT_ONCE).map((l) => l.id);
    const r = await get<{ reads: Record<string, string> }>(`/console/api/reads${query({ leadIds: chunk.join(',') })}`);
    Object.assign(reads, r.reads);
  }
  return { leads, reads, total, nextToken };
}

const plural = (n: number) => `${n} conversation${n === 1 ? '' : 's'}`;

/** Who wrote the last message, before its text: nobody for the lead's own words. */
function author(m: NonNullable<Lead['lastMessage']>): string {
  return m.direction === 'inbound' ? '' : `${authorOf(m)}: `;
}

/** Unread for this user: the lead spoke last, after the user last opened the conversation. */
export function isUnread(lead: Lead, lastReadAt: string | undefined): boolean {
  const last = lead.lastMessage;
  if (!last || last.direction !== 'inbound') return false;
  return !lastReadAt || new Date(last.at).getTime() > new Date(lastReadAt).getTime();
}

export function InboxPage() {
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const [pages, setPages] = useState(1);
  const inbox = useLoad(() => loadInbox(filters, pages), [JSON.stringify(filters), pages]);
  const pending = useRef<number | undefined>(undefined);
  // Many events can arrive at once (a batch, a campaign): reload once per burst.
  useLiveEvents(() => {
    window.clearTimeout(pending.current);
    pending.current = window.setTimeout(inbox.reload, 250);
  });

  const unread = inbox.data ? inbox.data.leads.filter((l) => isUnread(l, inbox.data?.reads[l.id])).length : 0;
  return (
    <Page title="Inbox">
      <FilterForm
        value={filters}
        onChange={(f) => {
          setFilters(f);
          setPages(1);
        }}
      />
      <LoadStatus load={inbox} what="conversations" />
      {inbox.data && (
        <>
          <p class="muted" aria-live="polite">
            {inbox.data.nextToken
              ? `${plural(inbox.data.total)}, the latest ${inbox.data.leads.length} shown`
              : plural(inbox.data.total)}
            , {unread} unread
          </p>
          <ul class="inbox" aria-label="Conversations">
            {inbox.data.leads.map((l) => {
              const isNew = isUnread(l, inbox.data?.reads[l.id]);
              return (
                <li key={l.id} class={isNew ? 'unread' : undefined}>
                  <Link href={`/leads/${encodeURIComponent(l.id)}`} class="row-link">
                    <span class="row-top">
                      <span class="name">
                        <UserText text={leadName(l)} />
                      </span>
                      <time dateTime={l.lastActivityAt ?? undefined}>{when(l.lastActivityAt)}</time>
                    </span>
                    <span class="preview">
                      {l.lastMessage ? (
                        <>
                          {(l.lastMessage.status === 'blocked' || l.lastMessage.status === 'failed') && (
                            <span class="badge off not-sent">
                              {l.lastMessage.status === 'blocked' ? 'not sent: blocked' : 'not sent: failed'}
                            </span>
                          )}
                          {author(l.lastMessage)}
                          {l.lastMessage.subject && (
                            <>
                              <span class="subject">
                                <UserText text={l.lastMessage.subject} />
                              </span>{' '}
                              ·{' '}
                            </>
                          )}
                          <UserText text={l.lastMessage.text} />
                        </>
                      ) : (
                        'No messages yet'
                      )}
                    </span>
                    <span class="badges">
                      {isNew && <span class="badge accent">unread</span>}
                      {l.needsAttention && <span class="badge warn">needs attention</span>}
                      {l.lastMessage && <span class="badge">{l.lastMessage.channel}</span>}
                      <span class="badge">
                        <UserText text={l.customerProfile} />
                      </span>
                      <span class={l.isAiOn ? 'badge' : 'badge off'}>AI {l.isAiOn ? 'on' : 'off'}</span>
                      <ReachBadges lead={l} />
                    </span>
                  </Link>
                </li>
              );
            })}
          </ul>
          {inbox.data.leads.length === 0 && <p>No conversations match.</p>}
          {inbox.data.nextToken && (
            <button type="button" onClick={() => setPages((p) => p + 1)}>
              Show {Math.min(PAGE, inbox.data.total - inbox.data.leads.length)} more
            </button>
          )}
        </>
      )}
    </Page>
  );
}
