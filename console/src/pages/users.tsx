import { useState } from 'preact/hooks';
import { del, get, patch, post } from '../api';
import { useSession } from '../session';
import type { ConsoleUser, Role } from '../types';
import { LoadStatus, OneTimeSecret, Page, useAction, useLoad } from '../ui';
import { UserText, visibleText } from '../user-text';

const ROLES: Role[] = ['admin', 'agent', 'viewer'];

export function UsersPage() {
  const { user: me } = useSession();
  const list = useLoad(() => get<{ users: ConsoleUser[] }>('/console/api/users'), []);
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('agent');
  const [created, setCreated] = useState<{ email: string; password: string } | null>(null);
  const action = useAction();

  const create = async (e: Event) => {
    e.preventDefault();
    setCreated(null);
    await action.run(async () => {
      const r = await post<{ user: ConsoleUser; password: string }>('/console/api/users', { email, role });
      setCreated({ email: r.user.email, password: r.password });
      setEmail('');
    });
    list.reload();
  };
  const changeRole = (u: ConsoleUser, next: Role) =>
    action.run(() => patch(`/console/api/users/${encodeURIComponent(u.id)}`, { role: next })).then(list.reload);
  const remove = (u: ConsoleUser) => async () => {
    if (!window.confirm(`Remove ${u.email}? Their sessions end at once.`)) return;
    await action.run(() => del(`/console/api/users/${encodeURIComponent(u.id)}`));
    list.reload();
  };

  return (
    <Page title="Users">
      <form class="card inline" onSubmit={create} aria-label="New user">
        <label for="user-email">Email</label>
        <input id="user-email" type="email" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
        <label for="user-role">Role</label>
        <select id="user-role" value={role} onChange={(e) => setRole(e.currentTarget.value as Role)}>
          {ROLES.map((r) => (
            <option key={r} value={r}>
              {r}
            </option>
          ))}
        </select>
        <button type="submit" disabled={action.busy}>
          Add user
        </button>
        {created && <OneTimeSecret label={`Password for ${created.email}`} value={created.password} />}
      </form>
      <LoadStatus load={list} what="users" error={action.error} />
      <ul class="plain stack">
        {list.data?.users.map((u) => (
          <li key={u.id} class="card user-row">
            <UserText class="wrap" text={u.email} />
            <label class="sr-only" for={`role-${u.id}`}>
              Role of <UserText text={u.email} />
            </label>
            <select
              id={`role-${u.id}`}
              value={u.role}
              disabled={u.id === me.id || action.busy}
              onChange={(e) => void changeRole(u, e.currentTarget.value as Role)}
            >
              {ROLES.map((r) => (
                <option key={r} value={r}>
                  {r}
                </option>
              ))}
            </select>
            {u.id !== me.id && (
              <button
                type="button"
                class="danger"
                onClick={remove(u)}
                aria-label={`Remove user ${visibleText(u.email)}`}
              >
                Remove
              </button>
            )}
          </li>
        ))}
      </ul>
    </Page>
  );
}
