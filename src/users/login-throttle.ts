/**
 * Failed sign-ins counted per account and per client address in fixed
 * 15-minute windows, in this process's memory: with several API processes
 * each counts its own share (docs/console.md says so). A success clears the
 * account's count, not the address's.
 */
const WINDOW_MS = 15 * 60_000;

class FailureCounter {
  private windows = new Map<string, { start: number; count: number }>();
  constructor(private readonly limit: number) {}

  /** Seconds until `key` may try again, or 0. */
  wait(key: string, now: number): number {
    const w = this.windows.get(key);
    if (!w || now - w.start >= WINDOW_MS || w.count < this.limit) return 0;
    return Math.max(1, Math.ceil((w.start + WINDOW_MS - now) / 1000));
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

export class LoginThrottle {
  private readonly accounts: FailureCounter;
  private readonly addresses: FailureCounter;
  constructor(perAccount: number, perAddress: number, private readonly now: () => number = Date.now) {
    this.accounts = new FailureCounter(perAccount);
    this.addresses = new FailureCounter(perAddress);
  }

  wait(email: string, address: string): number {
    const now = this.now();
    return Math.max(this.accounts.wait(email, now), this.addresses.wait(address, now));
  }

  failed(email: string, address: string): void {
    const now = this.now();
    this.accounts.fail(email, now);
    this.addresses.fail(address, now);
  }

  succeeded(email: string): void {
    this.accounts.clear(email);
  }
}
