/** A proportion with its 95 % Wilson score interval (Wilson 1927): well behaved at 0, 1 and small n, unlike the normal approximation. */
export interface Rate {
  rate: number | null;
  low: number | null;
  high: number | null;
}

const Z95 = 1.959963984540054;

export function wilson(successes: number, n: number, z = Z95): Rate {
  if (n <= 0) return { rate: null, low: null, high: null };
  const p = successes / n;
  const z2 = z * z;
  const centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const half = (z / (1 + z2 / n)) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  const round = (x: number) => Math.round(x * 1e6) / 1e6;
  return { rate: round(p), low: round(Math.max(0, centre - half)), high: round(Math.min(1, centre + half)) };
}

/** Whether two intervals are apart (neither overlaps the other): a conservative 95 % difference. */
export const apart = (a: Rate, b: Rate): boolean =>
  a.low !== null && b.low !== null && a.high !== null && b.high !== null && (a.low > b.high || b.low > a.high);
