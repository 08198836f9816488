import { useState } from 'preact/hooks';
import { get, put } from '../api';
import { when } from '../format';
import { canWrite, useSession } from '../session';
import { ErrorNote, useAction, useLoad } from '../ui';
import type { ConsentRecord, Lead, LeadNote } from '../types';
import { UserText } from '../user-text';

const show = (v: unknown): string =>
  v === null || v === undefined || v === '' ? '—' : typeof v === 'string' ? v : JSON.stringify(v);

/** The lead's owner (hand-offs), and for those who may write, a choice of another. */
function Owner({ lead }: { lead: Lead }) {
  const { user } = useSession();
  const users = useLoad(() => get<{ users: { id: string; email: string }[] }>('/v1/users'), []);
  const action = useAction();
  const [owner, setOwner] = useState(lead.owner ?? null);
  const email = (id: string | null) =>
    id === null ? 'nobody' : (users.data?.users.find((u) => u.id === id)?.email ?? id);
  const change = (id: string) =>
    action.run(async () => {
      const r = await put<{ owner: string | null }>(`/v1/leads/${encodeURIComponent(lead.id)}/owner`, {
        userId: id === '' ? null : id,
      });
      setOwner(r.owner);
    });
  return (
    <div>
      <dt>
        <label for="lead-owner">Owner</label>
      </dt>
      <dd>
        {canWrite(user.role) && users.data ? (
          <select
            id="lead-owner"
            value={owner ?? ''}
            disabled={action.busy}
            onChange={(e) => void change(e.currentTarget.value)}
          >
            <option value="">nobody</option>
            {users.data.users.map((u) => (
              <option key={u.id} value={u.id}>
                {u.email}
              </option>
            ))}
          </select>
        ) : (
          <UserText text={email(owner)} />
        )}
        <ErrorNote error={action.error} />
      </dd>
    </div>
  );
}

export function LeadDetails({ lead, consent, notes }: { lead: Lead; consent: ConsentRecord[]; notes: LeadNote[] }) {
  const fields: [string, unknown][] = [
    ['Phone', lead.phone],
    ['Email', lead.email],
    ['Profile', lead.customerProfile],
    ['AI', lead.isAiOn ? 'on' : 'off'],
    ['Do not contact', lead.isDoNotContact ? 'yes' : 'no'],
    ['Time zone', lead.timeZone],
    ['External id', lead.externalLeadId],
    ['Hot / qualified', `${lead.isHot ? 'hot' : 'not hot'}, ${lead.isQualified ? 'qualified' : 'not qualified'}`],
    ['Created', when(lead.createdAt)],
    ['Summary', lead.summary],
    ...Object.entries(lead.additionalInfo ?? {}),
  ];
  return (
    <>
      <section class="card" aria-labelledby="fields-title">
        <h2 id="fields-title">Lead</h2>
        <dl class="fields">
          {fields.map(([k, v]) => (
            <div key={k}>
              <dt>
                <UserText text={k} />
              </dt>
              <dd>
                <UserText text={show(v)} />
              </dd>
            </div>
          ))}
          <Owner lead={lead} />
          <div>
            <dt>Subscriptions</dt>
            <dd>
              sms {lead.subscriptions.sms}, voice {lead.subscriptions.voice}, email {lead.subscriptions.email}
            </dd>
          </div>
        </dl>
        <h3>Tags</h3>
        {lead.tags.length === 0 ? (
          <p class="muted">No tags.</p>
        ) : (
          <ul class="tags">
            {lead.tags.map((t) => (
              <li key={t.id} class="badge">
                <UserText text={t.name} />
              </li>
            ))}
          </ul>
        )}
      </section>
      <section class="card" aria-labelledby="notes-title">
        <h2 id="notes-title">Context for the AI</h2>
        {notes.length === 0 ? (
          <p class="muted">No context added.</p>
        ) : (
          <ol class="plain consent">
            {notes.map((n) => (
              <li key={n.id}>
                <time dateTime={n.createdAt}>{when(n.createdAt)}</time>{' '}
                {n.kind === 'command' ? `(command${n.consumedAt ? ', done' : ', pending'})` : ''}:{' '}
                <UserText class="wrap" text={n.text} />
              </li>
            ))}
          </ol>
        )}
      </section>
      <section class="card" aria-labelledby="consent-title">
        <h2 id="consent-title">Consent history</h2>
        {consent.length === 0 ? (
          <p class="muted">No opt-outs or opt-ins recorded.</p>
        ) : (
          <ol class="plain consent">
            {consent.map((c) => (
              <li key={c.id}>
                <time dateTime={c.createdAt}>{when(c.createdAt)}</time>:{' '}
                {c.action === 'optOut' ? 'opted out of' : 'opted in to'} {c.channel} ({c.source}
                {c.reason ? (
                  <>
                    , <UserText text={c.reason} />
                  </>
                ) : (
                  ''
                )}
                {c.actor ? (
                  <>
                    , by <UserText text={c.actorLabel ?? c.actor} />
                  </>
                ) : (
                  ''
                )}
                )
              </li>
            ))}
          </ol>
        )}
      </section>
    </>
  );
}
