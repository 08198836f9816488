import { purgeReceiptsBefore } from '../inbound/inbound.repository.js';
import { deleteExpiredRejects } from '../imports/rejects.repository.js';
import type { Deps } from '../platform/deps.js';

const DAY_MS = 86_400_000;
/** How often, by the deps' clock, expired rows are looked for: retention is counted in days, so hourly is prompt. */
const EVERY_MS = 3_600_000;

/**
 * Removes what is kept only for a while: rejected import rows past their
 * retention, and provider receipts (ids against replays) past theirs. Run
 * from the worker's loop, on its first tick and then hourly by the injected
 * clock (a test moves the clock instead of waiting). Any number of workers may
 * do it at once: each delete is idempotent.
 */
export class Housekeeping {
  private lastAt: number | undefined;

  constructor(private readonly deps: Deps) {}

  /** Answers how many things it cleared (imports' rejects, receipts), 0 when it was not time. */
  async runIfDue(): Promise<number> {
    const now = this.deps.clock.now().getTime();
    // A clock set back (a test's, or a host's correction) runs it too rather than waiting out the gap.
    if (this.lastAt !== undefined && now - this.lastAt < EVERY_MS && now >= this.lastAt) return 0;
    this.lastAt = now;
    const { rejectedRowsDays, providerReceiptsDays } = this.deps.config.retention;
    const rejectsBefore = new Date(now - rejectedRowsDays * DAY_MS).toISOString();
    let cleared = 0;
    for (;;) {
      const imports = await deleteExpiredRejects(this.deps.db, rejectsBefore);
      if (imports === 0) break;
      cleared += imports;
    }
    cleared += await purgeReceiptsBefore(this.deps.db, new Date(now - providerReceiptsDays * DAY_MS).toISOString());
    return cleared;
  }
}
