import { useState } from 'preact/hooks';
import { del, get, post } from '../api';
import { when } from '../format';
import type { ApiKey } from '../types';
import { LoadStatus, OneTimeSecret, Page, Table, useAction, useLoad } from '../ui';
import { UserText } from '../user-text';

export function KeysPage() {
  const list = useLoad(() => get<{ keys: ApiKey[] }>('/console/api/keys'), []);
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState('');
  const [created, setCreated] = useState<string | null>(null);
  const action = useAction();

  const create = async (e: Event) => {
    e.preventDefault();
    setCreated(null);
    await action.run(async () => {
      const wanted = scopes
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      const r = await post<{ key: string }>('/console/api/keys', wanted.length ? { name, scopes: wanted } : { name });
      setCreated(r.key);
      setName('');
      setScopes('');
    });
    list.reload();
  };
  const revoke = (k: ApiKey) => async () => {
    if (!window.confirm(`Revoke the key ${k.prefix}? Clients using it stop working at once.`)) return;
    await action.run(() => del(`/console/api/keys/${encodeURIComponent(k.prefix)}`));
    list.reload();
  };

  return (
    <Page title="API keys">
      <form class="card stack" onSubmit={create} aria-label="New API key">
        <label for="key-name">Name</label>
        <input id="key-name" required maxLength={100} value={name} onInput={(e) => setName(e.currentTarget.value)} />
        <label for="key-scopes">Scopes (comma separated; empty for the default set)</label>
        <input
          id="key-scopes"
          placeholder="leads:read, leads:write"
          aria-describedby="key-scopes-note"
          value={scopes}
          onInput={(e) => setScopes(e.currentTarget.value)}
        />
        <p id="key-scopes-note" class="muted">
          inbound:write (speaking as a lead) is granted only on the command line:{' '}
          <code>parley keys create --scopes inbound:write</code>.
        </p>
        <button type="submit" disabled={action.busy}>
          Create key
        </button>
        {created && <OneTimeSecret label="New API key" value={created} />}
      </form>
      <LoadStatus load={list} what="keys" error={action.error} />
      {list.data && (
        <Table caption="API keys" columns={['Prefix', 'Name', 'Scopes', 'Created', 'State']}>
          {list.data.keys.map((k) => (
            <tr key={k.prefix}>
              <td>
                <code>{k.prefix}</code>
              </td>
              <td>{k.name ? <UserText text={k.name} /> : '—'}</td>
              <td class="scopes">{k.scopes?.join(', ') ?? '—'}</td>
              <td>{when(k.createdAt)}</td>
              <td>
                {k.revokedAt ? (
                  `revoked ${when(k.revokedAt)}`
                ) : (
                  <button type="button" class="danger" onClick={revoke(k)} aria-label={`Revoke key ${k.prefix}`}>
                    Revoke
                  </button>
                )}
              </td>
            </tr>
          ))}
        </Table>
      )}
    </Page>
  );
}
