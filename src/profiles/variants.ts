import { createHash } from 'node:crypto';

/** One A/B variant of a profile's opening (docs/analytics.md): a template and its share of the leads. */
export interface OpeningVariant {
  name: string;
  text: string;
  weight: number;
}

/** The variants stored on the profile (JSON text), or none. */
export function parseVariants(json: string | null): OpeningVariant[] {
  if (!json) return [];
  try {
    const parsed = JSON.parse(json) as unknown;
    return Array.isArray(parsed)
      ? (parsed as OpeningVariant[]).filter(
          (v) => typeof v?.name === 'string' && typeof v.text === 'string' && v.weight > 0,
        )
      : [];
  } catch {
    return [];
  }
}

/**
 * The variant of a lead: a point in [0, 1) from a SHA-256 of the profile's name
 * and the lead's id, laid over the variants' cumulative weights in their
 * order. The same lead on the same profile gets the same variant in every
 * process, retry and re-run (nothing random, nothing stored needed to repeat it);
 * leads spread over the variants by weight.
 */
export function pickVariant(
  variants: readonly OpeningVariant[],
  profile: string,
  leadId: string,
): OpeningVariant | undefined {
  if (variants.length === 0) return undefined;
  const total = variants.reduce((s, v) => s + v.weight, 0);
  const digest = createHash('sha256').update(`${profile}\u0000${leadId}`).digest();
  const point = (digest.readUInt32BE(0) / 2 ** 32) * total;
  let edge = 0;
  for (const v of variants) {
    edge += v.weight;
    if (point < edge) return v;
  }
  return variants[variants.length - 1];
}
