/**
 * Fixed one-minute windows per API key, in this process's memory. With N API
 * processes behind a balancer each enforces the limit on its own share; the
 * README says so. Cheap: one map lookup per request, no I/O.
 */
export class RateLimiter {
  private windows = new Map<string, { start: number; count: number }>();

  constructor(
    private readonly perMinute: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Seconds the caller must wait, or 0 when the request may proceed. */
  take(key: string): number {
    if (this.perMinute <= 0) return 0;
    const now = this.now();
    const start = now - (now % 60_000);
    let w = this.windows.get(key);
    if (!w || w.start !== start) {
      if (this.windows.size > 100_000) this.windows.clear();
      w = { start, count: 0 };
      this.windows.set(key, w);
    }
    w.count += 1;
    if (w.count <= this.perMinute) return 0;
    return Math.max(1, Math.ceil((start + 60_000 - now) / 1000));
  }
}
