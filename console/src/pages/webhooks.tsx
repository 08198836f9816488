import { useEffect, useState } from 'preact/hooks';
import { del, get, patch, post, query } from '../api';
import { when } from '../format';
import type { WebhookDelivery, WebhookEndpoint } from '../types';
import { ErrorNote, LoadStatus, OneTimeSecret, Page, Table, useAction, useLoad } from '../ui';
import { UserText, visibleText } from '../user-text';

/** Deliveries per page, and each "Show more". */
const PAGE = 50;
/** While a listed delivery is pending (a replay on its way), the list is read again this often... */
const PENDING_POLL_MS = 1000;
/** ...for at most this many times, so a page left open does not poll for ever. */
const PENDING_POLLS = 120;

const STATUSES = ['pending', 'succeeded', 'failed'] as const;

interface DeliveryFilter {
  status: string;
  eventType: string;
  /** A lead's id: only deliveries of its events. The lead page links here with `?lead=`. */
  leadId: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** The lead the address names (`/console/webhooks?lead=<id>`), or ''. */
const leadOfAddress = () => new URLSearchParams(location.search).get('lead') ?? '';

async function loadDeliveries(base: string, f: DeliveryFilter, pages: number) {
  const out: WebhookDelivery[] = [];
  let nextToken: string | null = null;
  for (let i = 0; i < pages; i++) {
    const page: { deliveries: WebhookDelivery[]; nextToken: string | null } = await get(
      `${base}/deliveries${query({ limit: PAGE, status: f.status, eventType: f.eventType, leadId: f.leadId, nextToken: nextToken ?? undefined })}`,
    );
    out.push(...page.deliveries);
    nextToken = page.nextToken;
    if (!nextToken) break;
  }
  return { deliveries: out, nextToken };
}

interface AttemptAnswer {
  at: string;
  statusCode: number | null;
  error: string | null;
}

/** The body a delivery sends and each attempt's answer, read when its row is opened. */
function DeliveryBody({ endpointId, delivery }: { endpointId: string; delivery: WebhookDelivery }) {
  const [open, setOpen] = useState(false);
  const path = `/webhooks/${encodeURIComponent(endpointId)}/deliveries/${encodeURIComponent(delivery.id)}`;
  const body = useLoad(
    () =>
      open
        ? Promise.all([
            get<{ body: unknown }>(`/v1${path}`),
            get<{ answers: AttemptAnswer[] }>(`/console/api${path}/answers`),
          ]).then(([b, a]) => ({ body: b.body, answers: a.answers }))
        : Promise.resolve(undefined),
    [open, delivery.id, delivery.attempts],
  );
  return (
    <details onToggle={(e) => setOpen((e.currentTarget as HTMLDetailsElement).open)}>
      <summary>Body and answers</summary>
      {open && !body.data && <LoadStatus load={body} what="the body" />}
      {body.data &&
        (body.data.answers.length === 0 ? (
          <p class="muted">Not attempted yet.</p>
        ) : (
          <ol class="plain attempts" aria-label="Each attempt's answer">
            {body.data.answers.map((a, i) => (
              <li key={`${i}-${a.at}`}>
                <time dateTime={a.at}>{when(a.at)}</time>: {a.statusCode ?? 'no answer'}
                {a.error && a.statusCode === null ? <> ({a.error})</> : ''}
              </li>
            ))}
          </ol>
        ))}
      {body.data &&
        (body.data.body === null ? (
          <p class="muted">The event was erased.</p>
        ) : (
          <pre class="wrap">{JSON.stringify(body.data.body, null, 2)}</pre>
        ))}
    </details>
  );
}

function Deliveries({ endpoint }: { endpoint: WebhookEndpoint }) {
  const base = `/v1/webhooks/${encodeURIComponent(endpoint.id)}`;
  const [filter, setFilter] = useState<DeliveryFilter>({ status: '', eventType: '', leadId: leadOfAddress() });
  // What is typed in the lead field; the list follows it once it is a whole lead id (or empty).
  const [leadText, setLeadText] = useState(filter.leadId);
  const [pages, setPages] = useState(1);
  const list = useLoad(
    () => loadDeliveries(base, filter, pages),
    [endpoint.id, filter.status, filter.eventType, filter.leadId, pages],
  );
  const action = useAction();
  const [done, setDone] = useState<string | null>(null);
  const [polls, setPolls] = useState(0);
  const pending = list.data?.deliveries.some((d) => d.status === 'pending') ?? false;
  // A replay (or a retry) is on its way: read the list again until its row settles.
  useEffect(() => {
    if (!pending || polls >= PENDING_POLLS) return;
    const t = window.setTimeout(() => {
      setPolls((n) => n + 1);
      list.reload();
    }, PENDING_POLL_MS);
    return () => window.clearTimeout(t);
  }, [pending, polls, list.data]);
  const replay = (d: WebhookDelivery) => async () => {
    setDone(null);
    if (await action.run(() => post(`${base}/deliveries/${encodeURIComponent(d.id)}/replay`)))
      setDone(`Replay of ${d.eventType} queued.`);
    setPolls(0);
    list.reload();
  };
  const filterBy = (change: Partial<DeliveryFilter>) => {
    setFilter({ ...filter, ...change });
    setPages(1);
  };
  const types = endpoint.events ?? [...new Set(list.data?.deliveries.map((d) => d.eventType) ?? [])].sort();
  const id = (name: string) => `wh-${endpoint.id}-${name}`;
  return (
    <>
      <div class="filters" role="group" aria-label={`Filter deliveries to ${visibleText(endpoint.url)}`}>
        <label for={id('status')}>Status</label>
        <select id={id('status')} value={filter.status} onChange={(e) => filterBy({ status: e.currentTarget.value })}>
          <option value="">Any</option>
          {STATUSES.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
        <label for={id('event')}>Event</label>
        <select
          id={id('event')}
          value={filter.eventType}
          onChange={(e) => filterBy({ eventType: e.currentTarget.value })}
        >
          <option value="">Any</option>
          {[...new Set([...types, ...(filter.eventType ? [filter.eventType] : [])])].map((t) => (
            <option key={t} value={t}>
              {t}
            </option>
          ))}
        </select>
        <label for={id('lead')}>Lead id</label>
        <input
          id={id('lead')}
          type="search"
          size={38}
          placeholder="any lead"
          aria-describedby={id('lead-hint')}
          value={leadText}
          onInput={(e) => {
            const text = e.currentTarget.value.trim();
            setLeadText(e.currentTarget.value);
            if (text === '' || UUID.test(text)) filterBy({ leadId: text.toLowerCase() });
          }}
        />
        <span id={id('lead-hint')} class="muted small">
          {leadText.trim() !== '' && !UUID.test(leadText.trim())
            ? 'Not a lead id yet: the list is not filtered by lead.'
            : "A lead's page links here with its id filled in."}
        </span>
      </div>
      {!list.data || list.error ? (
        <LoadStatus load={list} what="deliveries" />
      ) : list.data.deliveries.length === 0 ? (
        <p class="muted">No deliveries{filter.status || filter.eventType || filter.leadId ? ' match' : ' yet'}.</p>
      ) : (
        <Table
          caption={`Deliveries to ${visibleText(endpoint.url)}`}
          showCaption
          columns={['Event', 'Status', 'Attempts', 'Last answer', 'Created', 'Body', 'Replay']}
          below={
            <>
              <ErrorNote error={action.error} />
              {done && (
                <p class="muted" role="status">
                  {done}
                </p>
              )}
              {list.data.nextToken && (
                <button type="button" onClick={() => setPages((p) => p + 1)}>
                  Show {PAGE} more
                </button>
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
                <DeliveryBody endpointId={endpoint.id} delivery={d} />
              </td>
              <td>
                <button
                  type="button"
                  onClick={replay(d)}
                  disabled={action.busy}
                  aria-label={`Replay ${d.eventType} delivery from ${when(d.createdAt)}`}
                >
                  Replay
                </button>
              </td>
            </tr>
          ))}
        </Table>
      )}
    </>
  );
}

/** Enable or disable, give a new secret, delete: each says what it did next to its buttons. */
function EndpointControls({ endpoint, onChanged }: { endpoint: WebhookEndpoint; onChanged: () => void }) {
  const base = `/v1/webhooks/${encodeURIComponent(endpoint.id)}`;
  const action = useAction();
  const [secret, setSecret] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const url = visibleText(endpoint.url);
  const run = async (fn: () => Promise<unknown>, said: string) => {
    setDone(null);
    setSecret(null);
    if (await action.run(fn)) setDone(said);
    onChanged();
  };
  const rotate = async () => {
    setDone(null);
    if (!window.confirm(`Give ${url} a new signing secret? The current one stops working at once.`)) return;
    await action.run(async () => {
      const r = await post<{ secret: string }>(`${base}/rotateSecret`);
      setSecret(r.secret);
    });
  };
  const remove = async () => {
    if (!window.confirm(`Delete the endpoint ${url} and its deliveries?`)) return;
    await run(() => del(base), 'Endpoint deleted.');
  };
  return (
    <div class="endpoint-actions">
      <button
        type="button"
        disabled={action.busy}
        onClick={() =>
          run(
            () => patch(base, { enabled: !endpoint.enabled }),
            endpoint.enabled ? 'Endpoint disabled: its events are kept until it is enabled.' : 'Endpoint enabled.',
          )
        }
      >
        {endpoint.enabled ? 'Disable' : 'Enable'}
      </button>
      <button type="button" disabled={action.busy} onClick={rotate}>
        New secret
      </button>
      <button type="button" class="danger" disabled={action.busy} onClick={remove}>
        Delete
      </button>
      <ErrorNote error={action.error} />
      {done && (
        <p class="muted" role="status">
          {done}
        </p>
      )}
      {secret && <OneTimeSecret label="New signing secret" value={secret} />}
    </div>
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
      <input
        id="wh-url"
        type="url"
        required
        placeholder="https://example.com/parley"
        value={url}
        onInput={(e) => setUrl(e.currentTarget.value)}
      />
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
            {w.enabled ? 'Enabled' : `Disabled${w.disabledReason ? `: ${w.disabledReason}` : ''}`} · events:{' '}
            {w.events?.join(', ') ?? 'all'}
          </p>
          <EndpointControls endpoint={w} onChanged={list.reload} />
          <Deliveries endpoint={w} />
        </section>
      ))}
    </Page>
  );
}
