import type { Lead, Message } from './types.js';

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

export function when(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : dateTime.format(d);
}

export const leadName = (l: Pick<Lead, 'firstName' | 'lastName'>) =>
  `${l.firstName} ${l.lastName}`.trim() || 'Unnamed lead';

/**
 * A message's state in words: the API's status (scheduled, sending, sent,
 * delivered, failed, blocked, received) with the reason a send waits or was stopped.
 */
export function messageState(m: Message): {
  label: string;
  detail: string | null;
  tone: 'ok' | 'wait' | 'bad' | 'plain';
} {
  if (m.direction === 'inbound') return { label: 'received', detail: null, tone: 'plain' };
  if (m.status === 'blocked') return { label: 'blocked', detail: m.statusReason ?? m.statusCode, tone: 'bad' };
  if (m.status === 'failed') return { label: 'failed', detail: m.statusReason ?? m.statusCode, tone: 'bad' };
  if (m.statusCode === 'CONTACT_HOURS' || m.status === 'waiting') {
    const at = m.scheduledTime ? ` until ${when(m.scheduledTime)}` : '';
    return {
      label: 'waiting for contact hours',
      detail: `${m.statusReason ?? 'Outside contact hours'}${at}`,
      tone: 'wait',
    };
  }
  if (m.status === 'scheduled' || m.status === 'queued' || m.status === 'sending') {
    const future = m.scheduledTime && new Date(m.scheduledTime).getTime() > Date.now() + 5000;
    return {
      label: future ? 'scheduled' : 'queued',
      detail: future ? `for ${when(m.scheduledTime)}` : null,
      tone: 'wait',
    };
  }
  if (m.status === 'delivered') return { label: 'delivered', detail: null, tone: 'ok' };
  if (m.status === 'sent') return { label: 'sent', detail: null, tone: 'ok' };
  return { label: m.status, detail: m.statusReason, tone: 'plain' };
}

/** Who wrote a message: the lead, a compliance reply (Automatic), the AI or a person of the team. */
export function authorOf(m: {
  direction: Message['direction'];
  purpose?: Message['purpose'];
  isAiGenerated?: boolean;
}): 'Lead' | 'Automatic' | 'AI' | 'Team' {
  if (m.direction === 'inbound') return 'Lead';
  if (m.purpose === 'compliance' || m.purpose === 'stop_confirmation') return 'Automatic';
  return m.isAiGenerated ? 'AI' : 'Team';
}
