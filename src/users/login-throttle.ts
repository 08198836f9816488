/**
 * Sign-in attempts counted per account and per client address in fixed
 * 15-minute windows, in this process's memory: with several API processes
 * each counts its own share (docs/console.md says so).
 *
 * An attempt is reserved before its password is checked and counts against
 * the limit while it runs: otherwise every request in flight when the limit
 * is reached (scrypt takes tens of milliseconds) would still be checked, and
 * a burst of concurrent guesses would pass the limit many times over. A
 * failure turns its reservation into a failure; a success drops it and clears
 * the account's failures, not the address's.
 */
const WINDOW_MS = 15 * 60_000;

class AttemptCounter {
  private windows = new Map<string, { start: number; count: number }>();
  private running = new Map<string, number>();
  constructor(private readonly limit: number) {}

  /** Seconds until `key` may try again (failures and attempts in flight fill the allowance), or 0. */
  wait(key: string, now: number): number {
    const w = this.windows.get(key);
    const failures = w && now - w.start < WINDOW_MS ? w.count : 0;
    if (failures + (this.running.get(key) ?? 0) < this.limit) return 0;
    // Full of attempts still running: one of them may succeed and free its place in a moment.
    if (failures < this.limit || !w) return 1;
    return Math.max(1, Math.ceil((w.start + WINDOW_MS - now) / 1000));
  }

  start(key: string): void {
    this.running.set(key, (this.running.get(key) ?? 0) + 1);
  }

  finish(key: string): void {
    const n = (this.running.get(key) ?? 0) - 1;
    if (n > 0) this.running.set(key, n);
    else this.running.delete(key);
  }

  fail(key: string, now: number): void {
    let w = this.windows.get(key);
    if (!w || now - w.start >= WINDOW_MS) {
      if (this.windows.size > 100_000) this.windows.clear();
      w = { start: now, count: 0 };
      this.windows.set(key, w);
    }
    w.count += 1;
  }

  clear(key: string): void {
    this.windows.delete(key);
  }
}

/** One reserved sign-in attempt: end it exactly once, with its outcome. */
export interface SignInAttempt {
  failed(): void;
  succeeded(): void;
  /** The password could not be checked (the database failed): the attempt counts as nothing. */
  abandoned(): void;
}

export class LoginThrottle {
  private readonly accounts: AttemptCounter;
  private readonly addresses: AttemptCounter;
  constructor(
    perAccount: number,
    perAddress: number,
    private readonly now: () => number = Date.now,
  ) {
    this.accounts = new AttemptCounter(perAccount);
    this.addresses = new AttemptCounter(perAddress);
  }

  /** Reserves an attempt, or answers the seconds to wait (a number) when the account or the address has no allowance left. */
  begin(email: string, address: string): SignInAttempt | number {
    const now = this.now();
    const wait = Math.max(this.accounts.wait(email, now), this.addresses.wait(address, now));
    if (wait > 0) return wait;
    this.accounts.start(email);
    this.addresses.start(address);
    let open = true;
    const end = (outcome: () => void) => {
      if (!open) return;
      open = false;
      this.accounts.finish(email);
      this.addresses.finish(address);
      outcome();
    };
    return {
      failed: () =>
        end(() => {
          const at = this.now();
          this.accounts.fail(email, at);
          this.addresses.fail(address, at);
        }),
      succeeded: () => end(() => this.accounts.clear(email)),
      abandoned: () => end(() => {}),
    };
  }
}
