import { useEffect, useState } from 'preact/hooks';
import { get, post, put } from '../api';
import { useLiveEvents } from '../events';
import { when } from '../format';
import { Link } from '../router';
import type { Handoff, HandoffStats } from '../types';
import { LoadStatus, Page, Table, useAction, useLoad } from '../ui';
import { UserText, visibleText } from '../user-text';

const mine = () => get<{ handoffs: Handoff[]; stats: { overall: HandoffStats } }>('/v1/handoffs?ownerId=me');

/** Said on this page when the user acknowledged or closed one: the badge counts again at once. */
const CHANGED = 'parley:handoffs-changed';

const minutes = (s: number | null) => (s === null ? '—' : `${Math.round(s / 6) / 10} min`);
const LEVELS = ['', 'escalated to you', 'escalated to the admins'];

/**
 * How many hand-offs wait for the signed-in user's acknowledgement: the
 * number in the "My hand-offs" link. Refreshed when any notification arrives
 * (a hand-off raises one) and every 15 s besides.
 */
export function HandoffBadge() {
  const [open, setOpen] = useState(0);
  const refresh = () =>
    void mine().then(
      (r) => setOpen(r.handoffs.filter((h) => h.status === 'open').length),
      () => {},
    );
  useEffect(() => {
    refresh();
    const timer = setInterval(refresh, 15_000);
    window.addEventListener(CHANGED, refresh);
    return () => (clearInterval(timer), window.removeEventListener(CHANGED, refresh));
  }, []);
  useLiveEvents((e) => {
    if (e.type === 'notification' || e.type === 'reconnected') refresh();
  });
  if (open === 0) return null;
  return (
    <span class="badge" role="status" aria-label={`${open} hand-off${open === 1 ? '' : 's'} to acknowledge`}>
      {open}
    </span>
  );
}

/** "My hand-offs": the leads handed to the signed-in user, each acknowledged with one click. */
export function HandoffsPage() {
  const list = useLoad(mine, []);
  const action = useAction();
  useLiveEvents((e) => {
    if (e.type === 'notification' || e.type === 'reconnected') list.reload();
  });
  const changed = () => (list.reload(), window.dispatchEvent(new Event(CHANGED)));
  const ack = (h: Handoff) =>
    action.run(() => post(`/v1/leads/${encodeURIComponent(h.leadId)}/handoff/ack`)).then(changed);
  const close = (h: Handoff) =>
    action.run(() => post(`/v1/leads/${encodeURIComponent(h.leadId)}/handoff/close`)).then(changed);
  const current = list.data?.handoffs.filter((h) => h.status !== 'closed') ?? [];
  const stats = list.data?.stats.overall;
  const me = useLoad(() => get<{ isAway: boolean }>('/console/api/me/rep'), []);
  const [away, setAway] = useState<boolean | null>(null);
  const isAway = away ?? me.data?.isAway ?? false;
  const toggleAway = () =>
    action.run(async () =>
      setAway((await put<{ isAway: boolean }>('/console/api/me/away', { isAway: !isAway })).isAway),
    );
  return (
    <Page
      title="My hand-offs"
      actions={
        me.data && (
          <button type="button" aria-pressed={isAway} disabled={action.busy} onClick={() => void toggleAway()}>
            {isAway ? 'Away: new hand-offs go to others (turn off)' : 'Available (set away)'}
          </button>
        )
      }
    >
      <LoadStatus load={list} what="hand-offs" error={action.error} />
      {list.data && current.length === 0 && <p class="muted">Nothing handed to you right now.</p>}
      {current.length > 0 && (
        <Table caption="Hand-offs to you" columns={['Lead', 'Handed off', 'Reason', 'Status', '']}>
          {current.map((h) => (
            <tr key={h.id}>
              <td>
                <Link href={`/leads/${encodeURIComponent(h.leadId)}`}>
                  <UserText text={h.leadName || 'Lead'} />
                </Link>
              </td>
              <td>
                <time dateTime={h.raisedAt}>{when(h.raisedAt)}</time>
              </td>
              <td>
                <UserText class="wrap" text={h.reason ?? '—'} />
              </td>
              <td>
                {h.status === 'open' ? 'waiting for you' : 'acknowledged'}
                {LEVELS[h.escalationLevel] ? ` (${LEVELS[h.escalationLevel]})` : ''}
              </td>
              <td>
                {h.status === 'open' ? (
                  <button
                    type="button"
                    disabled={action.busy}
                    onClick={() => void ack(h)}
                    aria-label={`Acknowledge the hand-off of ${visibleText(h.leadName || 'the lead')}`}
                  >
                    Acknowledge
                  </button>
                ) : (
                  <button
                    type="button"
                    class="link"
                    disabled={action.busy}
                    onClick={() => void close(h)}
                    aria-label={`Close the hand-off of ${visibleText(h.leadName || 'the lead')}`}
                  >
                    Close
                  </button>
                )}
              </td>
            </tr>
          ))}
        </Table>
      )}
      {stats && stats.touched > 0 && (
        <p class="muted">
          Time to first touch, your hand-offs: median {minutes(stats.p50Seconds)}, 90th percentile{' '}
          {minutes(stats.p90Seconds)} ({stats.touched} of {stats.count}).
        </p>
      )}
    </Page>
  );
}
