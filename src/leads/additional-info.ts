export type InfoChanges = Record<string, { old: unknown; new: unknown }>;

/**
 * Merge semantics of decisions.md: keys are set, a key set to null is deleted.
 * Works on null-prototype objects, so no key can reach Object.prototype.
 */
export function mergeInfo(existing: Record<string, unknown>, patch: Record<string, unknown>): { merged: Record<string, unknown>; changes: InfoChanges } {
  const merged: Record<string, unknown> = Object.assign(Object.create(null), existing);
  const changes: InfoChanges = {};
  for (const key of Object.keys(patch)) {
    const before = Object.prototype.hasOwnProperty.call(merged, key) ? merged[key] : null;
    const after = patch[key] ?? null;
    if (after === null) delete merged[key];
    else merged[key] = after;
    if (JSON.stringify(before) !== JSON.stringify(after)) changes[key] = { old: before, new: after };
  }
  return { merged, changes };
}
