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
  const [done, setDone] = useState<string | null>(null);
  if (!canWrite(user.role)) return null;

  const base = `/v1/leads/${encodeURIComponent(lead.id)}`;
  const act = (what: string, fn: () => Promise<unknown>) => async () => {
    setDone(null);
    if (await action.run(fn)) setDone(what);
    onChange();
  };

  return (
    <section class="card" aria-labelledby="actions-title">
      <h2 id="actions-title">Actions</h2>
      <p class="ai-state">
        AI is <strong>{lead.isAiOn ? 'on' : 'off'}</strong>{' '}
        <button type="button" aria-pressed={lead.isAiOn} onClick={act(lead.isAiOn ? 'AI turned off.' : 'AI turned on.', () => post(`${base}/${lead.isAiOn ? 'turnOffAi' : 'turnOnAi'}`))} disabled={action.busy}>
          {lead.isAiOn ? 'Turn AI off' : 'Turn AI on'}
        </button>
      </p>

      <form class="inline" onSubmit={(e) => (e.preventDefault(), void act('Profile switched.', () => post(`${base}/switchCustomerProfile`, { profile }))())}>
        <label for="switch-profile">Profile</label>
        <select id="switch-profile" value={profile} onChange={(e) => setProfile(e.currentTarget.value)}>
          {(profiles.data?.profiles ?? []).map((p) => (
            <option key={p.id} value={p.name}>
              {visibleText(p.name)}
            </option>
          ))}
          {!profiles.data?.profiles.some((p) => p.name === lead.customerProfile) && <option value={lead.customerProfile}>{lead.customerProfile}</option>}
        </select>
        <button type="submit" disabled={action.busy || profile === lead.customerProfile}>
          Switch
        </button>
      </form>

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
                <button type="button" onClick={act(`Unsubscribed from ${c}.`, () => post(`${base}/unsubscribe`, { channels: [c] }))} disabled={action.busy}>
                  Unsubscribe {c}
                </button>
              )}
              {state === 'unsubscribed' && (
                <button type="button" onClick={act(`Resubscribed to ${c}.`, () => post(`${base}/resubscribe`, { channels: [c] }))} disabled={action.busy}>
                  Resubscribe {c}
                </button>
              )}
            </li>
          );
        })}
      </ul>

      {lead.phone && !lead.isDoNotContact && (
        <button type="button" class="danger" onClick={act('Added to the do-not-contact list.', () => post('/v1/dnc/register', { phone: lead.phone }))} disabled={action.busy}>
          Add to do-not-contact
        </button>
      )}

      <form
        onSubmit={(e) => {
          e.preventDefault();
          void act('Context added.', async () => {
            await post(`${base}/addContext`, { context });
            setContext('');
          })();
        }}
      >
        <label for="add-context">Add context for the AI</label>
        <textarea id="add-context" rows={2} maxLength={10000} value={context} onInput={(e) => setContext(e.currentTarget.value)} />
        <button type="submit" disabled={action.busy || !context.trim()}>
          Add context
        </button>
      </form>
      <ErrorNote error={action.error} />
      {done && (
        <p class="muted" role="status">
          {done}
        </p>
      )}
    </section>
  );
}
