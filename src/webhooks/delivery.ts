import type { Updateable } from 'kysely';
import type { WebhookDeliveriesTable } from '../platform/db/schema.js';
import type { Deps } from '../platform/deps.js';
import { claimDueDeliveries, holdDeliveries, updateDeliveries } from './deliveries.repository.js';
import { updateEndpoint } from './endpoints.repository.js';
import { signDelivery } from './signing.js';
import type { SendResult, WebhookSender } from './sender.js';
import { retryDelayMs } from './retry.js';
import { singleStatement } from '../platform/db/together.js';

interface Outcome {
  organizationId: string;
  id: string;
  endpointId: string;
  patch: Updateable<WebhookDeliveriesTable>;
  disableEndpoint?: string;
  /** Not attempted: its endpoint is disabled, so it is held (see hold). */
  hold?: true;
}

/** The hosted service's envelope; `data` is spliced in as stored, byte for byte the same on every retry. */
export const envelope = (type: string, createdAt: string, payload: string) =>
  `{"event":${JSON.stringify(type)},"timestamp":${JSON.stringify(createdAt)},"data":${payload}}`;

/**
 * Delivers webhook rows as a pipeline: up to `concurrency` requests in flight,
 * refilled as they finish, so one hanging receiver holds one slot, not a batch;
 * and at most half of the slots per endpoint, so a hanging endpoint with
 * a backlog cannot take them all and hold up every other endpoint.
 * Outcomes are written in groups (one transaction per flush): with durable
 * SQLite commits that is what lets one worker sustain thousands per second.
 */
export class DeliveryPipeline {
  private inFlight = 0;
  private readonly inFlightByEndpoint = new Map<string, number>();
  private outcomes: Outcome[] = [];
  private slotWaiters: (() => void)[] = [];
  /** Attempts ended since the start (the worker's step reports the difference). */
  private ended = 0;

  constructor(
    private readonly deps: Deps,
    private readonly sender: WebhookSender,
  ) {}

  get busy(): number {
    return this.inFlight;
  }

  /** Attempts that have ended (their outcome recorded or waiting for the next flush) since the start. */
  get completed(): number {
    return this.ended;
  }

  /** Free slots: a fill that claims fewer found every due delivery it may take now. */
  get room(): number {
    return Math.max(0, this.deps.config.workerConcurrency - this.inFlight);
  }

  get full(): boolean {
    return this.inFlight >= this.deps.config.workerConcurrency;
  }

  /** Claims due deliveries into free slots and starts them; answers how many started. */
  async fill(): Promise<number> {
    const free = this.deps.config.workerConcurrency - this.inFlight;
    if (free <= 0) return 0;
    const { db, clock, config } = this.deps;
    const now = clock.now();
    const perEndpoint = {
      column: 'endpoint_id' as const,
      max: Math.max(1, Math.floor(config.workerConcurrency / 2)),
      inFlight: this.inFlightByEndpoint,
    };
    // The lease must outlast the attempt (bounded by the timeout) and the recording of its outcome, or a
    // slow receiver is sent the same event again while the first request is still out.
    const leaseMs = Math.max(config.leaseMs, 2 * config.webhookTimeoutMs);
    const rows = await claimDueDeliveries(
      db,
      now.toISOString(),
      new Date(now.getTime() + leaseMs).toISOString(),
      free,
      perEndpoint,
    );
    // Claimed rows can vanish before they are read (their endpoint was deleted).
    if (rows.length === 0) return 0;
    for (const row of rows) {
      const { event, endpoint } = row;
      if (event && endpoint && Number(endpoint.enabled) !== 1) {
        this.hold(row);
        continue;
      }
      this.inFlight += 1;
      this.inFlightByEndpoint.set(row.endpoint_id, (this.inFlightByEndpoint.get(row.endpoint_id) ?? 0) + 1);
      const attempt = async (): Promise<SendResult> => {
        if (!event)
          return { ok: false, statusCode: null, error: 'event no longer exists', retryAfterSeconds: null, gone: true };
        if (!endpoint)
          return {
            ok: false,
            statusCode: null,
            error: 'endpoint no longer exists',
            retryAfterSeconds: null,
            gone: true,
          };
        const body = envelope(event.type, event.created_at, event.payload);
        const headers = signDelivery(
          endpoint.secret,
          event.id,
          Math.floor(this.deps.clock.now().getTime() / 1000),
          body,
        );
        return this.sender.post(endpoint.url, body, { ...headers });
      };
      void attempt()
        .then((result) => this.record(row, result, !!endpoint && !!event))
        .catch((err) => this.deps.log.error({ err, deliveryId: row.id }, 'delivery crashed'))
        .finally(() => {
          this.ended += 1;
          this.inFlight -= 1;
          // biome-ignore lint/style/noNonNullAssertion: hot path (benchmarked); the count was raised when this delivery started, and its entry is deleted only at 0
          const left = this.inFlightByEndpoint.get(row.endpoint_id)! - 1;
          if (left > 0) this.inFlightByEndpoint.set(row.endpoint_id, left);
          else this.inFlightByEndpoint.delete(row.endpoint_id);
          this.slotWaiters.splice(0).forEach((w) => w());
        });
    }
    return rows.length;
  }

  /**
   * A delivery of a disabled endpoint is kept, not attempted and not counted:
   * pending with no due time, until enabling the endpoint makes it due again
   * (webhooks.service.ts updateEndpoint, deliveries.repository.ts resumeHeldDeliveries).
   */
  private hold(row: { organization_id: string; id: string; endpoint_id: string }): void {
    this.outcomes.push({
      organizationId: row.organization_id,
      id: row.id,
      endpointId: row.endpoint_id,
      patch: {},
      hold: true,
    });
  }

  private record(
    row: { organization_id: string; id: string; endpoint_id: string; attempts: number },
    result: SendResult,
    endpointLive: boolean,
  ): void {
    const now = this.deps.clock.now();
    const attempts = row.attempts + 1;
    const base = {
      attempts,
      lease_until: null,
      last_status_code: result.statusCode,
      last_error: result.error,
      updated_at: now.toISOString(),
    };
    const outcome: Outcome = {
      organizationId: row.organization_id,
      id: row.id,
      endpointId: row.endpoint_id,
      patch: {},
    };
    const schedule = this.deps.config.webhookRetryScheduleMs;
    if (result.ok) {
      outcome.patch = { ...base, status: 'succeeded', delivered_at: now.toISOString(), next_attempt_at: null };
    } else if (result.gone || result.refused || attempts >= schedule.length) {
      outcome.patch = { ...base, status: 'failed', next_attempt_at: null };
      if (result.gone && endpointLive && result.statusCode === 410)
        outcome.disableEndpoint = 'the endpoint answered 410 Gone';
    } else {
      const wait = retryDelayMs(schedule, attempts, result.retryAfterSeconds);
      outcome.patch = { ...base, next_attempt_at: new Date(now.getTime() + wait).toISOString() };
    }
    this.outcomes.push(outcome);
  }

  /** Writes every recorded outcome in one transaction. */
  async flush(): Promise<number> {
    const batch = this.outcomes.splice(0);
    if (batch.length === 0) return 0;
    const now = this.deps.clock.now().toISOString();
    try {
      // Outcomes with the same patch (a batch of successes, typically) share one UPDATE:
      // one round trip per kind of outcome, not per delivery. Times are the flush time.
      const groups = new Map<string, { patch: Outcome['patch']; keys: { organization_id: string; id: string }[] }>();
      const held = batch
        .filter((o) => o.hold)
        .map((o) => ({ organization_id: o.organizationId, id: o.id, endpoint_id: o.endpointId }));
      for (const o of batch) {
        if (o.hold) continue;
        const patch = { ...o.patch, updated_at: now, ...(o.patch.delivered_at ? { delivered_at: now } : {}) };
        const key = JSON.stringify(patch);
        const group = groups.get(key) ?? { patch, keys: [] };
        group.keys.push({ organization_id: o.organizationId, id: o.id });
        groups.set(key, group);
      }
      const [only] = [...groups.values()];
      // `only !== undefined` always holds after groups.size === 1 (once per batch, not per row): it narrows the type.
      const single =
        groups.size === 1 &&
        held.length === 0 &&
        !batch.some((o) => o.disableEndpoint) &&
        only !== undefined &&
        only.keys.length <= 200;
      // The common flush (a batch of successes) is one UPDATE: on its own it is atomic, and a
      // transaction around it would add two round trips (BEGIN, COMMIT) to every batch.
      if (single) {
        await singleStatement(this.deps.db, (db) => updateDeliveries(db, only.keys, only.patch, answerOf(only.patch)));
        return batch.length;
      }
      await this.deps.db.transaction().execute(async (trx) => {
        if (held.length > 0) await holdDeliveries(trx, held, now);
        for (const { patch, keys } of groups.values()) {
          await updateDeliveries(trx, keys, patch, answerOf(patch));
        }
        for (const o of batch) {
          if (o.disableEndpoint) {
            await updateEndpoint(trx, o.organizationId, o.endpointId, {
              enabled: 0,
              disabled_reason: o.disableEndpoint,
              updated_at: now,
            });
          }
        }
      });
    } catch (err) {
      // Not written: the leases lapse and these deliveries are attempted again (at-least-once).
      this.deps.log.error({ err, count: batch.length }, 'could not record delivery outcomes');
    }
    return batch.length;
  }

  /**
   * Resolves once fewer than `count` deliveries are in flight, or after `ms`:
   * refilling in batches rather than one slot at a time keeps the claim and
   * bookkeeping queries per delivery low.
   */
  async waitUntilBelow(count: number, ms: number): Promise<void> {
    const deadline = Date.now() + ms;
    while (this.inFlight >= count && Date.now() < deadline) await this.waitForSlot(deadline - Date.now());
  }

  /** Ends every wait for a slot now (work was committed: the worker claims instead of waiting). */
  stopWaiting(): void {
    this.slotWaiters.splice(0).forEach((w) => w());
  }

  /** Resolves when a slot frees up, or after `ms` at most. */
  waitForSlot(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(resolve, ms);
      this.slotWaiters.push(() => {
        clearTimeout(t);
        resolve();
      });
    });
  }
}

/**
 * The attempt's answer as its delivery's history keeps it (migration 0039): what the
 * outcome's patch records, at the flush time. Equal patches share it, so a group is still one UPDATE.
 */
function answerOf(patch: Outcome['patch']): string {
  return `${JSON.stringify({ at: patch.updated_at, statusCode: patch.last_status_code ?? null, error: patch.last_error ?? null })}\n`;
}
