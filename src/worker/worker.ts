import { setTimeout as sleep } from 'node:timers/promises';
import { JobPipeline, type JobHandlers, type JobRun } from '../jobs/runner.js';
import { jobHandlers } from './catalog.js';
import type { Deps } from '../platform/deps.js';
import { DeliveryPipeline } from '../webhooks/delivery.js';
import { dispatchEvents } from '../webhooks/dispatcher.js';
import { WebhookSender } from '../webhooks/sender.js';
import { refreshStatistics } from '../platform/db/statistics.js';
import { Housekeeping } from './housekeeping.js';
import { foldPending } from '../analytics-records/pending.repository.js';
import type { WorkSignal } from '../platform/db/wake.js';

/** What one step of the worker (Worker.runDue) did. */
export interface StepReport {
  /** Every job run that ended during the step, in the order they ended. */
  jobs: JobRun[];
  /** Outbox events fanned out to webhook deliveries. */
  events: number;
  /** Webhook delivery attempts that ended (succeeded, failed or set to retry). */
  deliveries: number;
}

/** How far a step reaches beyond what is due now (Worker.runDue). */
export interface StepOptions {
  /**
   * Also run the paced sends whose slot comes within this many milliseconds of the moment the step finds
   * nothing else due: it waits for each slot by the wall clock (the deps' clock runs on from wherever it was
   * set), runs what came due, and looks again, as long as the next slot keeps within this reach of the last
   * wait's end. 0 (the default): only what is due now. A test that sends twice through one sending number
   * sees both at the carrier after one step with, say, 3000; one about pacing itself leaves it at 0.
   */
  pacedWithinMs?: number;
}

interface TickResult {
  more: boolean;
  claimed: number;
}

/** Outbox events fanned out per tick. */
const EVENT_BATCH = 500;

/** Rounds of a step before it gives up: work that makes due work forever (a job retried at once) is a bug to report. */
const STEP_ROUNDS = 100;

/** Waits of a step for paced slots (StepOptions.pacedWithinMs): a number's schedule is finite, so more is a bug too. */
const PACED_WAITS = 50;

/** Promise.all, but settles only once every promise has: the first rejection, if any, after all have ended. */
async function allEnded<T extends readonly unknown[]>(
  promises: T,
): Promise<{ -readonly [K in keyof T]: Awaited<T[K]> }> {
  const results = await Promise.allSettled(promises);
  const failed = results.find((r) => r.status === 'rejected');
  if (failed) throw (failed as PromiseRejectedResult).reason;
  return results.map((r) => (r as PromiseFulfilledResult<unknown>).value) as {
    -readonly [K in keyof T]: Awaited<T[K]>;
  };
}

/**
 * The background worker: fans outbox events out to endpoints, delivers them,
 * and runs due jobs. Any number of workers may share one PostgreSQL database
 * (rows are leased with SKIP LOCKED); on SQLite run one.
 */
export class Worker {
  private running = false;
  private loop: Promise<void> | undefined;
  private wake: (() => void) | undefined;
  private readonly sender: WebhookSender;
  private readonly deliveries: DeliveryPipeline;
  private readonly jobs: JobPipeline;
  private readonly housekeeping: Housekeeping;
  /** A job slot came free after all were taken: the loop claims again now (or right after the tick it is in). */
  private nudged = false;

  private stopListening: (() => void) | undefined;
  /** Ticks take turns (the loop's and a step's), so a step never misses rows a concurrent claim holds. */
  private tickLock: Promise<unknown> = Promise.resolve();
  private eventsFannedOut = 0;

  /**
   * `handlers`: the catalog's, unless a test gives its own. `work`: the store's
   * wakes (platform/db/wake.ts): a commit that wrote work, here or (PostgreSQL,
   * when the process listens) in another process, starts a tick at once; the
   * poll only catches what no wake announced.
   */
  constructor(
    private readonly deps: Deps,
    handlers: JobHandlers = jobHandlers,
    private readonly work?: WorkSignal,
  ) {
    this.sender = new WebhookSender(deps.config.webhookTimeoutMs, deps.config.allowPrivateWebhookUrls);
    this.deliveries = new DeliveryPipeline(deps, this.sender);
    this.jobs = new JobPipeline(deps, handlers, () => this.nudge());
    this.housekeeping = new Housekeeping(deps);
  }

  private nudge(): void {
    this.nudged = true;
    this.wake?.();
  }

  /** Committed work: claim now, also when the loop waits for a delivery slot. */
  private workCommitted(): void {
    this.nudge();
    this.deliveries.stopWaiting();
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.stopListening = this.work?.onWake(() => this.workCommitted());
    this.loop = this.run();
  }

  private locked<T>(fn: () => Promise<T>): Promise<T> {
    const turn = this.tickLock.then(fn);
    this.tickLock = turn.catch(() => {});
    return turn;
  }

  /**
   * One step, for tests and tools that drive the worker with a moved clock instead of waiting for its
   * loop: claims and runs everything due now (by the deps' clock), waits for those jobs and deliveries
   * to end and their outcomes to be written, and again for what they made due, until a claim finds
   * nothing. Answers what ran. Safe beside the running loop (both claim in turns); work the loop
   * had already started is waited for and reported too. With `pacedWithinMs`, paced sends whose slot
   * is that close are waited for and run too (StepOptions).
   */
  async runDue(options: StepOptions = {}): Promise<StepReport> {
    const reach = options.pacedWithinMs ?? 0;
    const jobs: JobRun[] = [];
    const unwatch = this.jobs.watch((run) => jobs.push(run));
    const startEvents = this.eventsFannedOut;
    const startDeliveries = this.deliveries.completed;
    try {
      for (let waits = 0; ; waits++) {
        await this.runUntilNothingDue(jobs);
        if (reach <= 0) break;
        // A send paced to its number's next slot is deferred to that instant: not due yet, so the rounds above
        // did not run it. Within reach, wait for its slot and step again.
        const next = await this.jobs.nextPacedDue();
        const wait = next === undefined ? Number.POSITIVE_INFINITY : next.getTime() - this.deps.clock.now().getTime();
        if (wait > reach) break;
        if (waits >= PACED_WAITS)
          throw new Error(`runDue: still waiting for paced sends after ${PACED_WAITS} slots (next in ${wait} ms)`);
        // A few ms past the slot: the claim compares with the clock at millisecond precision.
        if (wait > -5) await sleep(wait + 5);
      }
      await this.locked(() => this.deliveries.flush());
      return {
        jobs,
        events: this.eventsFannedOut - startEvents,
        deliveries: this.deliveries.completed - startDeliveries,
      };
    } finally {
      unwatch();
    }
  }

  /** Claims and runs what is due, and what that made due, until a claim finds nothing and nothing runs. */
  private async runUntilNothingDue(jobs: JobRun[]): Promise<void> {
    for (let round = 0; ; round++) {
      if (round >= STEP_ROUNDS)
        throw new Error(
          `runDue: still finding due work after ${STEP_ROUNDS} rounds (jobs so far: ${JSON.stringify(jobs.slice(-5))})`,
        );
      await this.settle();
      const { claimed } = await this.locked(() => this.tick());
      if (claimed === 0 && this.jobs.busy === 0 && this.deliveries.busy === 0) return;
    }
  }

  /** Waits until no job or delivery is running, and writes the deliveries' outcomes. */
  private async settle(): Promise<void> {
    const deadline = Date.now() + this.deps.config.webhookTimeoutMs + this.deps.config.ai.timeoutMs + 5_000;
    while (this.jobs.busy > 0 || this.deliveries.busy > 0) {
      if (Date.now() > deadline)
        throw new Error(`runDue: ${this.jobs.busy} jobs and ${this.deliveries.busy} deliveries still running`);
      if (this.jobs.busy > 0) await this.jobs.drained(50);
      else await this.deliveries.waitForSlot(50);
    }
    await this.locked(() => this.deliveries.flush());
  }

  /** Answers whether more may be due right now (something was fanned out, or a claim filled every free slot) and how much it claimed. */
  private async tick(): Promise<TickResult> {
    const deliveryRoom = this.deliveries.room;
    const jobRoom = this.jobs.room;
    // Independent rows, so one round trip's wait instead of four: fanning out new events, claiming
    // due deliveries, recording finished ones (rows this worker holds, never the ones being claimed)
    // and claiming jobs. On SQLite the statements still run one at a time.
    // All four end before the tick does, a failed one too: a claim still in flight after the tick (and its turn
    // of the lock) ended would put jobs in flight that a step beside it had already found absent.
    const [fanOut, delivering, , jobs] = await allEnded([
      dispatchEvents(this.deps, EVENT_BATCH),
      this.deliveries.fill(),
      this.deliveries.flush(),
      this.jobs.fill(),
    ] as const);
    const dispatched = fanOut.events;
    this.eventsFannedOut += dispatched;
    await this.keepStatisticsFresh(dispatched);
    // Expired rejected rows and provider receipts: hourly by the clock, nothing to do otherwise.
    await this.housekeeping.runIfDue();
    await this.foldAnalytics();
    // Fanned-out events made deliveries the claim beside it could not see (a fan-out that made none, no
    // endpoint wanting them, leaves nothing to look for), or a full batch of events left more. A claim short
    // of its room took all that was due: what commits later wakes the loop, so it need not look again at once.
    const more =
      fanOut.deliveries > 0 ||
      dispatched >= EVENT_BATCH ||
      (deliveryRoom > 0 && delivering >= deliveryRoom) ||
      (jobRoom > 0 && jobs >= jobRoom);
    return { more, claimed: dispatched + delivering + jobs };
  }

  private fannedOut = 0;
  private analysedAt = 0;
  private foldedAt = 0;

  /**
   * Analytics counts queued by the work since (analytics-records/pending.repository.ts), added into the rollups every
   * PARLEY_ANALYTICS_FOLD_MS; a report folds its organization's before reading anyway, so this only keeps the queue short.
   */
  private async foldAnalytics(): Promise<void> {
    const every = this.deps.config.analyticsFoldMs;
    if (every === 0 || Date.now() - this.foldedAt < every) return;
    this.foldedAt = Date.now();
    await foldPending(this.deps.db);
  }

  /** After a burst of fan-out, the deliveries table's statistics are refreshed (platform/db/statistics.ts), at most twice a minute. */
  private async keepStatisticsFresh(dispatched: number): Promise<void> {
    this.fannedOut += dispatched;
    if (this.fannedOut < 1000 || Date.now() - this.analysedAt < 30_000) return;
    this.fannedOut = 0;
    this.analysedAt = Date.now();
    await refreshStatistics(this.deps.db, 'webhook_deliveries');
  }

  private async run(): Promise<void> {
    while (this.running) {
      let more = false;
      try {
        more = (await this.locked(() => this.tick())).more;
      } catch (err) {
        // A database hiccup must not kill the worker: log, back off, try again.
        this.deps.log.error({ err }, 'worker tick failed');
      }
      if (!this.running) break;
      // Nothing new to claim while deliveries are out: wake when one finishes (to record it and
      // refill its slot) or at the poll interval, not every few ms (that polled the database
      // hundreds of times a second for as long as a receiver hung).
      // Refill in batches: wait until a quarter of the slots are out (or a short while, so other
      // endpoints are served even while one hangs), then claim many at once.
      const lowWater = Math.max(1, Math.floor(this.deps.config.workerConcurrency / 4));
      if (this.deliveries.busy >= lowWater)
        await this.deliveries.waitUntilBelow(lowWater, Math.min(20, this.deps.config.workerPollMs));
      else if (!more && this.deliveries.busy > 0) {
        // A wake during the tick is not lost while deliveries are out.
        if (this.nudged) this.nudged = false;
        else await this.deliveries.waitForSlot(this.deps.config.workerPollMs);
      } else if (!more) await this.idle(this.deps.config.workerPollMs);
    }
  }

  private idle(ms: number): Promise<void> {
    if (this.nudged) {
      this.nudged = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(t);
        this.wake = undefined;
        this.nudged = false;
        resolve();
      };
      const t = setTimeout(done, ms);
      this.wake = done;
    });
  }

  /**
   * Stops claiming, lets in-flight deliveries finish (each is bounded by the
   * webhook timeout) and records their outcomes. Anything not recorded keeps
   * its lease, which lapses, so another worker picks it up: nothing is lost.
   */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.stopListening?.();
    this.wake?.();
    await this.loop;
    const deadline = Date.now() + this.deps.config.webhookTimeoutMs + 1000;
    while (this.deliveries.busy > 0 && Date.now() < deadline) await this.deliveries.waitForSlot(50);
    await this.deliveries.flush();
    // Running jobs finish (each bounded by its provider timeout); one cut short keeps its lease and runs again later.
    await this.jobs.drained(Math.max(0, deadline - Date.now()) + this.deps.config.ai.timeoutMs);
    await this.sender.close();
  }
}
