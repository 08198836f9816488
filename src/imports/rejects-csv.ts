import { csvLine } from '../platform/csv.js';

/**
 * The rejects file (API download and `--rejects`): the import's header with `reason` after it, then each rejected
 * row as read. A row with fewer values than the header is padded, so `reason` always stands under its name; a row
 * with more keeps its surplus values after the reason, in unnamed columns, rather than pushing the reason there.
 */
export const rejectsHeaderLine = (headers: readonly string[]): string => csvLine([...headers, 'reason']);

export function rejectLine(headers: readonly string[], raw: string, reason: string): string {
  const values = JSON.parse(raw) as string[];
  return csvLine([...headers.map((_h, i) => values[i] ?? ''), reason, ...values.slice(headers.length)]);
}
