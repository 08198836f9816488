import { csvLine } from '../platform/csv.js';

/**
 * The rejects file (API download and `--rejects`): the import's header with `reason` and `warnings` after it, then
 * each rejected row as read (with why), and each row imported without a bad field (an empty reason, the fields left
 * out under warnings). A row with fewer values than the header is padded, so both always stand under their names; a
 * row with more keeps its surplus values after them, in unnamed columns, rather than pushing them there.
 */
export const rejectsHeaderLine = (headers: readonly string[]): string => csvLine([...headers, 'reason', 'warnings']);

export function rejectLine(
  headers: readonly string[],
  raw: string,
  reason: string,
  warnings: string | null = null,
): string {
  const values = JSON.parse(raw) as string[];
  return csvLine([...headers.map((_h, i) => values[i] ?? ''), reason, warnings ?? '', ...values.slice(headers.length)]);
}
