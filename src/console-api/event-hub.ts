import type { Deps } from '../platform/deps.js';
import { eventsAfter, type StoredEvent } from './events.repository.js';

export interface StreamEvent {
  id: string;
  type: string;
  data: Record<string, unknown>;
}
type Listener = (event: StreamEvent) => void;

/**
 * Events commit out of id order: two transactions take ids (UUIDv7, time-ordered)
 * in one order and may commit in the other, on any process. Each poll therefore
 * re-reads the last LAG_MS of ids and skips those already sent; an event whose
 * transaction took longer than that to commit would be missed.
 */
const LAG_MS = 10_000;
const PAGE = 500;

/** The smallest UUIDv7 of a millisecond: ids compare as text, and this one sorts before every id made at or after `ms`. */
function idFloor(ms: number): string {
  const hex = Math.max(0, Math.floor(ms)).toString(16).padStart(12, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-0000-0000-000000000000`;
}

function toStreamEvent(row: StoredEvent): StreamEvent {
  let payload: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(row.payload);
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) payload = parsed as Record<string, unknown>;
  } catch {
    /* a payload is always JSON (events/outbox.repository.ts); keep the stream alive if one is not */
  }
  return {
    id: row.id,
    type: row.type,
    data: { type: row.type, leadId: payload.leadId ?? null, at: row.created_at, ...payload },
  };
}

/** One poller per organization somebody watches, shared by all of that organization's streams in this process. */
class OrganizationFeed {
  readonly listeners = new Set<Listener>();
  private floor: string;
  private sent = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private polling = false;

  constructor(
    private readonly deps: Deps,
    private readonly organizationId: string,
  ) {
    this.floor = idFloor(Date.now());
    this.timer = setInterval(() => void this.poll(), deps.config.console.eventsPollMs);
    this.timer.unref();
  }

  private async poll(): Promise<void> {
    if (this.polling) return;
    this.polling = true;
    try {
      const rows = await eventsAfter(this.deps.db, this.organizationId, this.floor, PAGE);
      const now = Date.now();
      for (const row of rows) {
        if (this.sent.has(row.id)) continue;
        this.sent.set(row.id, now);
        const event = toStreamEvent(row);
        for (const listener of this.listeners) listener(event);
      }
      // A full page: more may wait right behind it, so the next poll starts after it; otherwise only the recent window is re-read.
      const lagged = idFloor(now - LAG_MS);
      // biome-ignore lint/style/noNonNullAssertion: rows.length === PAGE > 0 on this side of the condition
      this.floor = rows.length === PAGE ? rows[rows.length - 1]!.id : lagged > this.floor ? lagged : this.floor;
      for (const id of this.sent.keys()) if (id <= this.floor) this.sent.delete(id);
    } catch (err) {
      this.deps.log.warn({ err, organizationId: this.organizationId }, 'console event stream: poll failed; retrying');
    } finally {
      this.polling = false;
    }
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }
}

export class EventHub {
  private feeds = new Map<string, OrganizationFeed>();
  private closers = new Set<() => void>();

  constructor(private readonly deps: Deps) {}

  /** Starts delivering the organization's new events to `listener`; the returned function stops it (and the poll, when nobody is left). */
  subscribe(organizationId: string, listener: Listener, onClose: () => void): () => void {
    let feed = this.feeds.get(organizationId);
    if (!feed) {
      feed = new OrganizationFeed(this.deps, organizationId);
      this.feeds.set(organizationId, feed);
    }
    feed.listeners.add(listener);
    this.closers.add(onClose);
    return () => {
      this.closers.delete(onClose);
      const current = this.feeds.get(organizationId);
      if (!current) return;
      current.listeners.delete(listener);
      if (current.listeners.size === 0) {
        current.stop();
        this.feeds.delete(organizationId);
      }
    };
  }

  /** Server shutdown: every stream ends, so closing the server does not wait on them. */
  closeAll(): void {
    for (const close of [...this.closers]) close();
    for (const feed of this.feeds.values()) feed.stop();
    this.feeds.clear();
  }
}
