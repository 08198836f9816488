import { useState } from 'preact/hooks';
import { useLiveEvents } from '../events';

/** One utterance of the call in progress, as `call.utterance` carries it (docs/console.md). */
interface Utterance {
  messageId: string;
  direction: 'inbound' | 'outbound';
  text: string;
}

/**
 * The live transcript of the lead's call in progress: each utterance as the
 * server stores it (SSE `call.utterance`), a shortened answer replacing what
 * the agent meant to say. It appears with the call's first utterance and
 * says so when the call has ended; the thread shows the stored call after that.
 */
export function LiveCall({ leadId }: { leadId: string }) {
  const [call, setCall] = useState<{ id: string; lines: Utterance[]; ended: boolean } | null>(null);
  useLiveEvents((e) => {
    if (e.leadId !== leadId) return;
    if (e.type === 'call.completed' || e.type === 'call.transferred') {
      setCall((c) => (c && c.id === e.callId ? { ...c, ended: true } : c));
      return;
    }
    if (e.type !== 'call.utterance' || typeof e.callId !== 'string') return;
    const u: Utterance = {
      messageId: String(e.messageId),
      direction: e.direction === 'inbound' ? 'inbound' : 'outbound',
      text: String(e.text ?? ''),
    };
    setCall((c) => {
      const same = c && c.id === e.callId ? c : { id: e.callId as string, lines: [], ended: false };
      const at = same.lines.findIndex((l) => l.messageId === u.messageId);
      const lines = at >= 0 ? same.lines.map((l, i) => (i === at ? u : l)) : [...same.lines, u];
      return { ...same, lines };
    });
  });
  if (!call) return null;
  return (
    <section class="card live-call" aria-label="Live call transcript" aria-live="polite">
      <h3>{call.ended ? 'Call ended' : 'Call in progress'}</h3>
      <ol class="plain">
        {call.lines.map((l) => (
          <li key={l.messageId} class={l.direction === 'inbound' ? 'from-lead' : 'from-agent'}>
            <strong>{l.direction === 'inbound' ? 'Lead' : 'Agent'}:</strong> {l.text}
          </li>
        ))}
      </ol>
    </section>
  );
}
