import { useRef, useState } from 'preact/hooks';
import { get, query } from '../api';
import { useLiveEvents } from '../events';
import { leadName, when } from '../format';
import { Link } from '../router';
import type { Lead } from '../types';
import { LoadStatus, Page, useLoad } from '../ui';
import { FilterForm, NO_FILTERS, filterQuery, type Filters } from './lead-filters';
import { UserText } from '../user-text';

interface InboxData {
  leads: Lead[];
  reads: Record<string, string>;
}

async function loadInbox(f: Filters): Promise<InboxData> {
  const { leads } = await get<{ leads: Lead[] }>(`/v1/leads${query({ sort: 'lastActivity', limit: 100, ...filterQuery(f) })}`);
  const shown = leads.filter((l) => !f.channel || l.lastMessage?.channel === f.channel);
  if (shown.length === 0) return { leads: shown, reads: {} };
  const { reads } = await get<{ reads: Record<string, string> }>(`/console/api/reads${query({ leadIds: shown.map((l) => l.id).join(',') })}`);
  return { leads: shown, reads };
}

/** Unread for this user: the lead spoke last, after the user last opened the conversation. */
export function isUnread(lead: Lead, lastReadAt: string | undefined): boolean {
  const last = lead.lastMessage;
  if (!last || last.direction !== 'inbound') return false;
  return !lastReadAt || new Date(last.at).getTime() > new Date(lastReadAt).getTime();
}

export function InboxPage() {
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const inbox = useLoad(() => loadInbox(filters), [JSON.stringify(filters)]);
  const pending = useRef<number | undefined>(undefined);
  // Many events can arrive at once (a batch, a campaign): reload once per burst.
  useLiveEvents(() => {
    window.clearTimeout(pending.current);
    pending.current = window.setTimeout(inbox.reload, 250);
  });

  const unread = inbox.data ? inbox.data.leads.filter((l) => isUnread(l, inbox.data?.reads[l.id])).length : 0;
  return (
    <Page title="Inbox">
      <FilterForm value={filters} onChange={setFilters} />
      <LoadStatus load={inbox} what="conversations" />
      {inbox.data && (
        <>
          <p class="muted" aria-live="polite">
            {inbox.data.leads.length} conversations, {unread} unread
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
                          {l.lastMessage.direction === 'inbound' ? '' : l.lastMessage.isAiGenerated ? 'AI: ' : 'Team: '}
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
                      {l.isDoNotContact ? <span class="badge off">do not contact</span> : l.isUnsubscribed && <span class="badge off">unsubscribed</span>}
                    </span>
                  </Link>
                </li>
              );
            })}
          </ul>
          {inbox.data.leads.length === 0 && <p>No conversations match.</p>}
        </>
      )}
    </Page>
  );
}
