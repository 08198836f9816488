import { useEffect, useRef } from 'preact/hooks';
import { get, put, query } from '../api';
import { useLiveEvents } from '../events';
import { leadName } from '../format';
import { Link } from '../router';
import type { ConsentRecord, Lead, LeadNote, Message } from '../types';
import { ReachBadges } from '../reach';
import { useSession } from '../session';
import { LoadStatus, Page, useLoad } from '../ui';
import { LeadActions } from './lead-actions';
import { LeadDetails } from './lead-details';
import { LiveCall } from './lead-live-call';
import { Thread } from './lead-thread';

interface LeadData {
  lead: Lead;
  messages: Message[];
  consent: ConsentRecord[];
  notes: LeadNote[];
}

/**
 * Every message, oldest first (the API pages by id, which follows time). A few pages at most for a console view.
 * The console's own read: an email's subject comes apart from its body.
 */
async function allMessages(id: string): Promise<Message[]> {
  const out: Message[] = [];
  let token: string | null | undefined;
  for (let i = 0; i < 5; i += 1) {
    const page = await get<{ messages: Message[]; nextToken: string | null }>(
      `/console/api/leads/${encodeURIComponent(id)}/messages${query({ limit: 1000, nextToken: token })}`,
    );
    out.push(...page.messages);
    token = page.nextToken;
    if (!token) break;
  }
  return out;
}

async function loadLead(id: string): Promise<LeadData> {
  const path = `/v1/leads/${encodeURIComponent(id)}`;
  const [lead, messages, consent, notes] = await Promise.all([
    get<Lead>(path),
    allMessages(id),
    get<{ records: ConsentRecord[] }>(`${path}/consent${query({ limit: 100 })}`).then(
      (r) => r.records,
      () => [] as ConsentRecord[],
    ),
    get<{ notes: LeadNote[] }>(`${path}/context`).then((r) => r.notes),
  ]);
  return { lead, messages, consent, notes };
}

const markRead = (id: string) => put(`/console/api/reads/${encodeURIComponent(id)}`).catch(() => undefined);

export function LeadPage({ id }: { id: string }) {
  const { user } = useSession();
  const data = useLoad(() => loadLead(id), [id]);
  const pending = useRef<number | undefined>(undefined);

  useEffect(() => {
    void markRead(id);
  }, [id]);

  // A new message, a delivery update or an opt-out for this lead: show it without a reload, and keep it read.
  useLiveEvents((e) => {
    if (e.leadId !== id && e.type !== 'reconnected') return;
    // Utterances go to the live transcript (lead-live-call.tsx); the thread reloads when the call ends.
    if (e.type === 'call.utterance') return;
    window.clearTimeout(pending.current);
    pending.current = window.setTimeout(() => {
      data.reload();
      void markRead(id);
    }, 150);
  });

  const title = data.data ? leadName(data.data.lead) : 'Lead';
  return (
    <Page title={title} actions={<Link href="/">← Inbox</Link>}>
      <LoadStatus load={data} what="the lead" />
      {data.data && (
        <div class="badges" role="group" aria-label="Reach">
          <ReachBadges lead={data.data.lead} />
          {user.role === 'admin' && (
            <Link href={`/webhooks${query({ lead: id })}`}>Webhook deliveries of this lead</Link>
          )}
        </div>
      )}
      {data.data && (
        <div class="lead-layout">
          <div class="lead-main">
            <LiveCall leadId={id} />
            <Thread lead={data.data.lead} messages={data.data.messages} onChange={data.reload} />
          </div>
          <aside class="lead-side" aria-label="Lead details and actions">
            <LeadActions lead={data.data.lead} onChange={data.reload} />
            <LeadDetails lead={data.data.lead} consent={data.data.consent} notes={data.data.notes} />
          </aside>
        </div>
      )}
    </Page>
  );
}
