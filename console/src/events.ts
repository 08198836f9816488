import { useEffect, useRef } from 'preact/hooks';

/** One SSE event as the server sends it: `data: {"type","leadId","at", ...payload}`. */
export interface LiveEvent {
  type: string;
  leadId?: string | null;
  at?: string;
  [k: string]: unknown;
}

const TYPES = [
  'message.received',
  'message.sent',
  'optOut',
  'resubscribed',
  'doNotContact',
  'notification',
  'leadTagged',
  'lead.additionalInfo.updated',
  'message',
  'message.delivered',
  'message.failed',
  'campaign.paused',
  'sendingNumber.unusable',
  'lead.created',
  'call.completed',
  'call.transferred',
  // Console-only: one utterance of a call in progress (the lead page's live transcript).
  'call.utterance',
  'appointment.booked',
  'appointment.rescheduled',
  'appointment.cancelled',
];

/**
 * Calls `onEvent` for every event of the organization while the component is
 * mounted. EventSource reconnects by itself after a network drop.
 */
export function useLiveEvents(onEvent: (e: LiveEvent) => void): void {
  const handler = useRef(onEvent);
  handler.current = onEvent;
  useEffect(() => {
    if (typeof EventSource === 'undefined') return;
    const source = new EventSource('/console/api/events');
    const listener = (msg: MessageEvent<string>) => {
      try {
        const data = JSON.parse(msg.data) as LiveEvent;
        handler.current({ ...data, type: data.type ?? msg.type });
      } catch {
        /* not JSON: ignore */
      }
    };
    for (const t of TYPES) source.addEventListener(t, listener as EventListener);
    // The server does not replay what was missed while disconnected: after a reconnect, refetch.
    let opened = 0;
    source.addEventListener('open', () => {
      opened += 1;
      if (opened > 1) handler.current({ type: 'reconnected' });
    });
    return () => source.close();
  }, []);
}
