import { useState } from 'preact/hooks';
import { get, post } from '../api';
import { when } from '../format';
import type { WebhookDelivery, WebhookEndpoint } from '../types';
import { ErrorNote, LoadStatus, OneTimeSecret, Page, Table, useAction, useLoad } from '../ui';
import { UserText, visibleText } from '../user-text';

function Deliveries({ endpoint }: { endpoint: WebhookEndpoint }) {
  const base = `/v1/webhooks/${encodeURIComponent(endpoint.id)}`;
  const list = useLoad(() => get<{ deliveries: WebhookDelivery[] }>(`${base}/deliveries?limit=50`), [endpoint.id]);
  const action = useAction();
  const [done, setDone] = useState<string | null>(null);
  const replay = (d: WebhookDelivery) => async () => {
    setDone(null);
    if (await action.run(() => post(`${base}/deliveries/${encodeURIComponent(d.id)}/replay`))) setDone(`Replay of ${d.eventType} queued.`);
    list.reload();
  };
  if (!list.data || list.error) return <LoadStatus load={list} what="deliveries" />;
  if (list.data.deliveries.length === 0) return <p class="muted">No deliveries yet.</p>;
  return (
    <Table
      caption={`Deliveries to ${visibleText(endpoint.url)}`}
      showCaption
      columns={['Event', 'Status', 'Attempts', 'Last answer', 'Created', 'Replay']}
      below={
        <>
          <ErrorNote error={action.error} />
          {done && (
            <p class="muted" role="status">
              {done}
            </p>
          )}
        </>
      }
    >
      {list.data.deliveries.map((d) => (
        <tr key={d.id}>
          <td>{d.eventType}</td>
          <td>{d.status}</td>
          <td>{d.attempts}</td>
          <td class="wrap">{d.lastStatusCode ?? d.lastError ?? '—'}</td>
          <td>{when(d.createdAt)}</td>
          <td>
            <button type="button" onClick={replay(d)} disabled={action.busy} aria-label={`Replay ${d.eventType} delivery from ${when(d.createdAt)}`}>
              Replay
            </button>
          </td>
        </tr>
      ))}
    </Table>
  );
}

function NewEndpoint({ onCreated }: { onCreated: () => void }) {
  const [url, setUrl] = useState('');
  const [secret, setSecret] = useState<string | null>(null);
  const action = useAction();
  const create = async (e: Event) => {
    e.preventDefault();
    await action.run(async () => {
      const r = await post<{ secret: string }>('/v1/webhooks', { url });
      setSecret(r.secret);
      setUrl('');
      onCreated();
    });
  };
  return (
    <form class="card inline" onSubmit={create} aria-label="New webhook endpoint">
      <label for="wh-url">Endpoint URL</label>
      <input id="wh-url" type="url" required placeholder="https://example.com/parley" value={url} onInput={(e) => setUrl(e.currentTarget.value)} />
      <button type="submit" disabled={action.busy}>
        Add endpoint
      </button>
      <ErrorNote error={action.error} />
      {secret && <OneTimeSecret label="Signing secret" value={secret} />}
    </form>
  );
}

export function WebhooksPage() {
  const list = useLoad(() => get<{ webhooks: WebhookEndpoint[] }>('/v1/webhooks'), []);
  return (
    <Page title="Webhooks">
      <NewEndpoint onCreated={list.reload} />
      <LoadStatus load={list} what="endpoints" />
      {list.data?.webhooks.length === 0 && <p>No endpoints yet.</p>}
      {list.data?.webhooks.map((w) => (
        <section key={w.id} class="card" aria-label={`Endpoint ${visibleText(w.url)}`}>
          <h2 class="wrap">
            <UserText text={w.url} />
          </h2>
          <p class="muted">
            {w.enabled ? 'Enabled' : `Disabled${w.disabledReason ? `: ${w.disabledReason}` : ''}`} · events: {w.events?.join(', ') ?? 'all'}
          </p>
          <Deliveries endpoint={w} />
        </section>
      ))}
    </Page>
  );
}
