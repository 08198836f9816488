import { useState } from 'preact/hooks';
import { get, patch, post } from '../api';
import { canAdmin, useSession } from '../session';
import type { Profile } from '../types';
import { ErrorNote, LoadStatus, Page, useAction, useLoad } from '../ui';
import { UserText, visibleText } from '../user-text';

type Draft = { name: string; description: string; instructions: string; openingMessage: string; questions: string };

const draftOf = (p?: Profile): Draft => ({
  name: p?.name ?? '',
  description: p?.description ?? '',
  instructions: p?.instructions ?? '',
  openingMessage: p?.openingMessage ?? '',
  questions: (p?.questions ?? []).join('\n'),
});

const bodyOf = (d: Draft) => ({
  description: d.description.trim() || null,
  instructions: d.instructions.trim() || null,
  openingMessage: d.openingMessage.trim() || null,
  questions: d.questions
    .split('\n')
    .map((q) => q.trim())
    .filter(Boolean),
});

function ProfileForm({ profile, onSaved, onCancel }: { profile?: Profile; onSaved: () => void; onCancel: () => void }) {
  const [d, setD] = useState<Draft>(draftOf(profile));
  const action = useAction();
  const set = (k: keyof Draft) => (e: Event) => setD({ ...d, [k]: (e.currentTarget as HTMLInputElement).value });
  const save = async (e: Event) => {
    e.preventDefault();
    const ok = await action.run(() =>
      profile
        ? patch(`/v1/customerProfiles/${encodeURIComponent(profile.name)}`, bodyOf(d))
        : post('/v1/customerProfiles', { name: d.name.trim(), ...bodyOf(d) }),
    );
    if (ok) onSaved();
  };
  const id = profile ? `p-${profile.id}` : 'p-new';
  return (
    <form class="card stack" onSubmit={save} aria-label={profile ? `Edit ${visibleText(profile.name)}` : 'New profile'}>
      {!profile && (
        <>
          <label for={`${id}-name`}>Name</label>
          <input id={`${id}-name`} required maxLength={100} value={d.name} onInput={set('name')} />
        </>
      )}
      <label for={`${id}-description`}>Description</label>
      <input id={`${id}-description`} maxLength={2000} value={d.description} onInput={set('description')} />
      <label for={`${id}-instructions`}>Instructions for the AI</label>
      <textarea id={`${id}-instructions`} rows={5} value={d.instructions} onInput={set('instructions')} />
      <label for={`${id}-opening`}>Opening message (template, e.g. Hi {'{{firstName}}'})</label>
      <textarea id={`${id}-opening`} rows={2} value={d.openingMessage} onInput={set('openingMessage')} />
      <label for={`${id}-questions`}>Questions (one a line)</label>
      <textarea id={`${id}-questions`} rows={3} value={d.questions} onInput={set('questions')} />
      <ErrorNote error={action.error} />
      <div class="buttons">
        <button type="submit" disabled={action.busy}>
          Save profile
        </button>
        <button type="button" class="secondary" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

export function ProfilesPage() {
  const { user } = useSession();
  const list = useLoad(() => get<{ profiles: Profile[] }>('/v1/customerProfiles'), []);
  const [editing, setEditing] = useState<string | null>(null);
  const admin = canAdmin(user.role);
  const saved = () => (setEditing(null), list.reload());
  return (
    <Page
      title="Profiles"
      actions={
        admin && editing !== 'new' ? (
          <button type="button" onClick={() => setEditing('new')}>
            New profile
          </button>
        ) : undefined
      }
    >
      {editing === 'new' && <ProfileForm onSaved={saved} onCancel={() => setEditing(null)} />}
      <LoadStatus load={list} what="profiles" />
      <ul class="plain stack">
        {list.data?.profiles.map((p) => (
          <li key={p.id} class="card">
            <h2>
              <UserText text={p.name} />
            </h2>
            {editing === p.id ? (
              <ProfileForm profile={p} onSaved={saved} onCancel={() => setEditing(null)} />
            ) : (
              <>
                <p>{p.description ? <UserText text={p.description} /> : <span class="muted">No description.</span>}</p>
                {p.openingMessage && (
                  <p class="muted">
                    Opening: <UserText text={p.openingMessage} />
                  </p>
                )}
                {p.questions.length > 0 && <p class="muted">{p.questions.length} questions</p>}
                {admin && (
                  <button
                    type="button"
                    onClick={() => setEditing(p.id)}
                    aria-label={`Edit profile ${visibleText(p.name)}`}
                  >
                    Edit
                  </button>
                )}
              </>
            )}
          </li>
        ))}
      </ul>
    </Page>
  );
}
