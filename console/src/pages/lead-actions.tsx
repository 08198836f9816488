import { useState } from 'preact/hooks';
import { get, post } from '../api';
import { canWrite, useSession } from '../session';
import { CHANNELS, type Lead, type Profile } from '../types';
import { ErrorNote, useAction, useLoad } from '../ui';
import { visibleText } from '../user-text';

/** What an agent or admin can do to a lead; a viewer sees the state only (lead-details). */
export function LeadActions({ lead, onChange }: { lead: Lead; onChange: () => void }) {
  const { user } = useSession();
  const action = useAction();
  const profiles = useLoad(() => get<{ profiles: Profile[] }>('/v1/customerProfiles'), []);
  const [profile, setProfile] = useState(lead.customerProfile);
  const [context, setContext] = useState('');
  // What the last action did, or why it failed, shown next to the control that caused it (`at`) and cleared by the next.
  const [done, setDone] = useState<{ at: string; text: string } | null>(null);
  const [failedAt, setFailedAt] = useState<string | null>(null);
  if (!canWrite(user.role)) return null;

  const base = `/v1/leads/${encodeURIComponent(lead.id)}`;
  const act = (at: string, what: string, fn: () => Promise<unknown>, confirm?: string) => async () => {
    setDone(null);
    setFailedAt(null);
    action.clear();
    if (confirm && !window.confirm(confirm)) return;
    if (await action.run(fn)) setDone((d) => (what ? { at, text: what } : d));
    else setFailedAt(at);
    onChange();
  };
  const Feedback = ({ at }: { at: string }) => (
    <>
      {failedAt === at && <ErrorNote error={action.error} />}
      {done?.at === at && (
        <p class="muted" role="status">
          {done.text}
        </p>
      )}
    </>
  );

  return (
    <section class="card" aria-labelledby="actions-title">
      <h2 id="actions-title">Actions</h2>
      <p class="ai-state">
        AI is <strong>{lead.isAiOn ? 'on' : 'off'}</strong>{' '}
        <button
          type="button"
          aria-pressed={lead.isAiOn}
          onClick={act('ai', lead.isAiOn ? 'AI turned off.' : 'AI turned on.', () =>
            post(`${base}/${lead.isAiOn ? 'turnOffAi' : 'turnOnAi'}`),
          )}
          disabled={action.busy}
        >
          {lead.isAiOn ? 'Turn AI off' : 'Turn AI on'}
        </button>
      </p>
      <Feedback at="ai" />

      {lead.phone && (
        <p>
          <button
            type="button"
            disabled={action.busy}
            onClick={act('call', '', async () => {
              // The gate decides, as for any send: the answer says whether it dials, waits for hours, or why not.
              const r = await post<{ status: string; statusReason: string | null; scheduledTime: string | null }>(
                `${base}/call`,
              );
              const said =
                r.status === 'dialing'
                  ? 'Calling: the agent talks with the lead.'
                  : r.status === 'waiting'
                    ? `Waiting: ${r.statusReason ?? 'outside contact hours'}.`
                    : `Not called: ${r.statusReason ?? r.status}.`;
              setDone({ at: 'call', text: said });
            })}
          >
            Call now
          </button>
        </p>
      )}
      <Feedback at="call" />

      <form
        class="inline"
        onSubmit={(e) => (
          e.preventDefault(),
          void act('profile', 'Profile switched.', () => post(`${base}/switchCustomerProfile`, { profile }))()
        )}
      >
        <label for="switch-profile">Profile</label>
        <select id="switch-profile" value={profile} onChange={(e) => setProfile(e.currentTarget.value)}>
          {(profiles.data?.profiles ?? []).map((p) => (
            <option key={p.id} value={p.name}>
              {visibleText(p.name)}
            </option>
          ))}
          {!profiles.data?.profiles.some((p) => p.name === lead.customerProfile) && (
            <option value={lead.customerProfile}>{lead.customerProfile}</option>
          )}
        </select>
        <button type="submit" disabled={action.busy || profile === lead.customerProfile}>
          Switch
        </button>
      </form>
      <Feedback at="profile" />

      <h3>Subscriptions</h3>
      <ul class="plain">
        {CHANNELS.map((c) => {
          const state = lead.subscriptions[c];
          return (
            <li key={c} class="sub-row">
              <span>
                {c}: <strong>{state}</strong>
              </span>
              {state === 'subscribed' && (
                <button
                  type="button"
                  onClick={act(
                    `sub-${c}`,
                    `Unsubscribed from ${c}.`,
                    () => post(`${base}/unsubscribe`, { channels: [c] }),
                    `Unsubscribe this lead from ${c}? Parley will not contact them on ${c} until they opt in again.`,
                  )}
                  disabled={action.busy}
                >
                  Unsubscribe {c}
                </button>
              )}
              {state === 'unsubscribed' && (
                <button
                  type="button"
                  onClick={act(`sub-${c}`, `Resubscribed to ${c}.`, () =>
                    post(`${base}/resubscribe`, { channels: [c] }),
                  )}
                  disabled={action.busy}
                >
                  Resubscribe {c}
                </button>
              )}
              <Feedback at={`sub-${c}`} />
            </li>
          );
        })}
      </ul>

      {lead.phone && !lead.isDoNotContact && (
        <button
          type="button"
          class="danger"
          onClick={act(
            'dnc',
            'Added to the do-not-contact list.',
            () => post('/v1/dnc/register', { phone: lead.phone }),
            `Put ${lead.phone} on the do-not-contact list? No SMS or call will reach it from any lead.`,
          )}
          disabled={action.busy}
        >
          Add to do-not-contact
        </button>
      )}
      <Feedback at="dnc" />

      <form
        onSubmit={(e) => {
          e.preventDefault();
          void act('context', 'Context added.', async () => {
            await post(`${base}/addContext`, { context });
            setContext('');
          })();
        }}
      >
        <label for="add-context">Add context for the AI</label>
        <textarea
          id="add-context"
          rows={2}
          maxLength={10000}
          value={context}
          onInput={(e) => setContext(e.currentTarget.value)}
        />
        <button type="submit" disabled={action.busy || !context.trim()}>
          Add context
        </button>
      </form>
      <Feedback at="context" />
    </section>
  );
}
