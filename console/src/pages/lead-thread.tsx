import { useState } from 'preact/hooks';
import { post } from '../api';
import { authorOf, messageState, when } from '../format';
import { canWrite, useSession } from '../session';
import { CHANNELS, type Channel, type Lead, type Message } from '../types';
import { ErrorNote, useAction } from '../ui';
import { UserText } from '../user-text';

const CHANNEL_NAMES: Record<Channel, string> = { sms: 'SMS', voice: 'Voice', email: 'Email' };

function MessageItem({ m }: { m: Message }) {
  const state = messageState(m);
  const who = authorOf(m);
  return (
    <li class={`msg ${m.direction}`}>
      <div class="msg-meta">
        <span>
          {who} · {CHANNEL_NAMES[m.channel] ?? m.channel}
        </span>
        <time dateTime={m.createdAt}>{when(m.createdAt)}</time>
      </div>
      {m.subject && (
        <p class="msg-subject">
          <span class="sr-only">Subject: </span>
          <UserText text={m.subject} />
        </p>
      )}
      {/* Lead-supplied text: always rendered as text, never as markup. */}
      <p class="msg-text">
        <UserText text={m.content.text} />
      </p>
      {m.direction === 'outbound' && (
        <p class={`msg-state ${state.tone}`}>
          <span class="state-label">{state.label}</span>
          {state.detail && <span> — {state.detail}</span>}
        </p>
      )}
    </li>
  );
}

/** Why the lead cannot be written to on this channel, or null when a reply may go out. */
export function replyRefusal(lead: Lead, channel: Channel): string | null {
  if (lead.isDoNotContact) return 'This lead is on the do-not-contact list: replies are not sent.';
  const sub = lead.subscriptions[channel];
  if (sub === 'unsubscribed')
    return `This lead unsubscribed from ${CHANNEL_NAMES[channel]}: a reply on this channel would be refused. Choose another channel or resubscribe them only with their consent.`;
  if (sub === 'unavailable')
    return `This lead has no ${channel === 'email' ? 'email address' : 'phone number'} for ${CHANNEL_NAMES[channel]}.`;
  return null;
}

function ReplyBox({ lead, onSent }: { lead: Lead; onSent: () => void }) {
  const initial = CHANNELS.find((c) => c !== 'voice' && lead.subscriptions[c] === 'subscribed') ?? 'sms';
  const [channel, setChannel] = useState<Channel>(initial);
  const [text, setText] = useState('');
  const [outcome, setOutcome] = useState<string | null>(null);
  const action = useAction();
  const refusal = replyRefusal(lead, channel);
  const base = `/v1/leads/${encodeURIComponent(lead.id)}`;

  const send = async (e: Event) => {
    e.preventDefault();
    setOutcome(null);
    const ok = await action.run(async () => {
      // A human taking over pauses the AI first, so it does not answer over the reply.
      if (lead.isAiOn) await post(`${base}/turnOffAi`);
      const r = await post<{ status: string; statusReason: string | null }>(`${base}/sendMessage`, {
        message: text,
        channel,
        sendWhenOff: true,
      });
      setOutcome(
        r.status === 'blocked'
          ? `Not sent: ${r.statusReason ?? 'blocked'}`
          : r.status === 'waiting'
            ? `Waiting for contact hours: ${r.statusReason ?? ''}`
            : 'Reply queued.',
      );
    });
    if (ok) setText('');
    onSent();
  };

  return (
    <form class="reply" onSubmit={send} aria-label="Send a reply">
      <div class="reply-row">
        <label for="reply-channel">Channel</label>
        <select id="reply-channel" value={channel} onChange={(e) => setChannel(e.currentTarget.value as Channel)}>
          {CHANNELS.filter((c) => c !== 'voice').map((c) => (
            <option key={c} value={c}>
              {CHANNEL_NAMES[c]}
            </option>
          ))}
        </select>
      </div>
      <label for="reply-text">Reply</label>
      <textarea
        id="reply-text"
        rows={3}
        maxLength={1600}
        disabled={!!refusal}
        aria-describedby={refusal ? 'reply-refusal' : 'reply-hint'}
        value={text}
        onInput={(e) => setText(e.currentTarget.value)}
      />
      {refusal ? (
        <p id="reply-refusal" class="notice">
          {refusal}
        </p>
      ) : (
        <p id="reply-hint" class="muted small">
          {lead.isAiOn ? 'Sending turns the AI off for this lead.' : 'The AI is off for this lead.'} Opt-outs,
          do-not-contact and contact hours still apply.
        </p>
      )}
      <ErrorNote error={action.error} />
      {outcome && (
        <p class="muted" role="status">
          {outcome}
        </p>
      )}
      <button type="submit" disabled={!!refusal || action.busy || !text.trim()}>
        Send reply
      </button>
    </form>
  );
}

export function Thread({ lead, messages, onChange }: { lead: Lead; messages: Message[]; onChange: () => void }) {
  const { user } = useSession();
  return (
    <section aria-labelledby="thread-title">
      <h2 id="thread-title">Conversation</h2>
      {messages.length === 0 ? (
        <p class="muted">No messages yet.</p>
      ) : (
        <ol class="thread" aria-live="polite">
          {messages.map((m) => (
            <MessageItem key={m.id} m={m} />
          ))}
        </ol>
      )}
      {canWrite(user.role) ? (
        <ReplyBox lead={lead} onSent={onChange} />
      ) : (
        <p class="notice">Your role ({user.role}) can read conversations but not reply.</p>
      )}
    </section>
  );
}
