import { createHash } from 'node:crypto';
import { planColumns } from './columns.js';
import { csvRecords } from './csv-source.js';
import type { ParseOptions } from './parse.js';
import { readRow, type ImportedLead } from './rows.js';

/**
 * What later rows of the file set, so that a row repeating a lead sets on it
 * only the fields no later row of that lead sets: the lead ends with the last
 * value of each field whatever the batches, and a second run of the file
 * changes nothing (docs/imports.md, Duplicates). Built by a first pass over
 * the file (scanLaterRows, on the parsing thread), keys only: for each row a
 * 64-bit digest of its lead key and a bit per field it gives: some 13 bytes
 * a row (20 MB for a million rows), in typed arrays.
 */

/** The fields a row may give besides its addresses, as bits: these three, then each additionalInfo column. */
const FIXED = ['firstName', 'lastName', 'timeZone'] as const;

/**
 * The key by which rows are known to be the same lead before the database is
 * read: the phone (rows with one phone always join one lead), else the email
 * (rows without a phone and with one email join the oldest lead holding it).
 */
export const rowKey = (r: Pick<ImportedLead, 'phone' | 'email'>): string | null =>
  r.phone !== null ? `p:${r.phone}` : r.email !== null ? `e:${r.email}` : null;

const digest = (key: string): bigint => createHash('sha1').update(key).digest().readBigUInt64BE(0);

/** The look-ahead as it crosses from the parsing thread (typed arrays, transferred). */
export interface LaterRowsData {
  /** Field names, one per bit: FIXED, then `info:KEY`. */
  fields: string[];
  /** The digests of the keys, ascending. */
  keys: BigUint64Array;
  /** keys[g]'s rows are rows[starts[g]..starts[g+1]), ascending. */
  starts: Uint32Array;
  rows: Uint32Array;
  /** For each of rows, the bits of the fields given by it or any later row of its key (`width` bytes each). */
  after: Uint8Array;
  width: number;
}

/** Answers which fields rows after a given row set on a lead. */
export class LaterRows {
  constructor(private readonly d: LaterRowsData) {}

  /** The fields that rows of `key` after row `row` set (empty when none). */
  fieldsAfter(key: string, row: number): string[] {
    const { keys, starts, rows, after, width, fields } = this.d;
    if (keys.length === 0) return [];
    const h = digest(key);
    let lo = 0;
    let hi = keys.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      // biome-ignore lint/style/noNonNullAssertion: hot path (benchmarked); mid is within 0..keys.length-1 by the binary search's bounds
      const k = keys[mid]!;
      if (k < h) lo = mid + 1;
      else if (k > h) hi = mid - 1;
      else {
        // The first row of the key after `row`: its suffix bits are those of every later row.
        // biome-ignore lint/style/noNonNullAssertion: hot path (benchmarked); starts has keys.length + 1 entries and mid < keys.length
        let a = starts[mid]!;
        // biome-ignore lint/style/noNonNullAssertion: hot path (benchmarked); starts has keys.length + 1 entries and mid + 1 <= keys.length
        let b = starts[mid + 1]!;
        while (a < b) {
          const m = (a + b) >> 1;
          // biome-ignore lint/style/noNonNullAssertion: hot path (benchmarked); m lies in the key's slice starts[mid]..starts[mid + 1] of rows
          if (rows[m]! <= row) a = m + 1;
          else b = m;
        }
        if (a === starts[mid + 1]) return [];
        const out: string[] = [];
        for (let bit = 0; bit < fields.length; bit++)
          // biome-ignore lint/style/noNonNullAssertion: hot path (benchmarked); a < starts[mid + 1] (returned above otherwise) and bit < fields.length
          if (after[a * width + (bit >> 3)]! & (1 << (bit & 7))) out.push(fields[bit]!);
        return out;
      }
    }
    return [];
  }
}

/** A growable typed array. */
function grow<T extends BigUint64Array | Uint32Array | Uint8Array>(a: T, need: number, make: (n: number) => T): T {
  if (need <= a.length) return a;
  const b = make(Math.max(need, a.length * 2));
  b.set(a as never);
  return b;
}

/**
 * The first pass: reads and checks the file as the import will, and notes
 * each valid row's key and fields. A file that fails part-way (an encoding
 * error, a record too long) gives the look-ahead of the rows before; the
 * import then meets the same error at the same row.
 */
export async function scanLaterRows(
  source: AsyncIterable<Buffer | string>,
  options: ParseOptions,
): Promise<LaterRowsData> {
  const records = csvRecords(source, undefined, options.encoding);
  let fields: string[] = [...FIXED];
  let width = 1;
  let hashes = new BigUint64Array(1024);
  let rowsOf = new Uint32Array(1024);
  let masks = new Uint8Array(1024);
  let n = 0;
  try {
    const first = await records.next();
    if (first.done) return empty(fields);
    const plan = planColumns(
      first.value.values.map((h) => h.trim()),
      options.map,
    );
    const infoBit = new Map<string, number>();
    for (const t of plan.targets)
      if ('info' in t && !infoBit.has(t.info)) infoBit.set(t.info, FIXED.length + infoBit.size);
    fields = [...FIXED, ...[...infoBit.keys()].map((k) => `info:${k}`)];
    width = Math.ceil(fields.length / 8);
    masks = new Uint8Array(1024 * width);
    for await (const record of records) {
      const outcome = readRow(plan, record.values, options.defaultCountry, options.invalidFields);
      if (!outcome.ok) continue;
      const lead = outcome.lead;
      const key = rowKey(lead);
      if (key === null) continue;
      hashes = grow(hashes, n + 1, (k) => new BigUint64Array(k));
      rowsOf = grow(rowsOf, n + 1, (k) => new Uint32Array(k));
      masks = grow(masks, (n + 1) * width, (k) => new Uint8Array(k));
      hashes[n] = digest(key);
      rowsOf[n] = record.row;
      const at = n * width;
      // biome-ignore lint/style/noNonNullAssertion: hot path (benchmarked); masks was grown to (n + 1) * width just above
      masks[at]! |= 1; // firstName: every valid row gives one
      // biome-ignore lint/style/noNonNullAssertion: hot path (benchmarked); masks was grown to (n + 1) * width just above
      if (lead.lastName !== undefined) masks[at]! |= 2;
      // biome-ignore lint/style/noNonNullAssertion: hot path (benchmarked); masks was grown to (n + 1) * width just above
      if (lead.timeZone !== undefined) masks[at]! |= 4;
      for (const k of Object.keys(lead.info)) {
        // biome-ignore lint/style/noNonNullAssertion: hot path (benchmarked); lead.info's keys are the plan's info columns, all put in infoBit above
        const bit = infoBit.get(k)!;
        // biome-ignore lint/style/noNonNullAssertion: hot path (benchmarked); bit < fields.length, so the byte is within this row's width
        masks[at + (bit >> 3)]! |= 1 << (bit & 7);
      }
      n += 1;
    }
  } catch {
    // The import proper reports the error when it reaches it (after the rows before it).
  }
  return repeated(fields, width, hashes.subarray(0, n), rowsOf.subarray(0, n), masks);
}

const empty = (fields: string[]): LaterRowsData => ({
  fields,
  keys: new BigUint64Array(0),
  starts: new Uint32Array(1),
  rows: new Uint32Array(0),
  after: new Uint8Array(0),
  width: 1,
});

/** Each key with its rows in file order and the fields of each row's successors. */
function repeated(
  fields: string[],
  width: number,
  hashes: BigUint64Array,
  rowsOf: Uint32Array,
  masks: Uint8Array,
): LaterRowsData {
  const sorted = hashes.slice().sort();
  // Runs of one digest in the sorted copy are the keys: counted, then noted (typed arrays only, since the parsing
  // thread's heap is small). A key of one row is kept too: a lead found by a row's email may hold a phone that a
  // single later row gives (resolve.ts looks up each of the lead's keys).
  const runs = (each: (key: bigint) => void) => {
    for (let i = 0; i < sorted.length; ) {
      let j = i + 1;
      while (j < sorted.length && sorted[j] === sorted[i]) j++;
      // biome-ignore lint/style/noNonNullAssertion: hot path (benchmarked); i < sorted.length by the loop's condition
      each(sorted[i]!);
      i = j;
    }
  };
  let groups = 0;
  runs(() => {
    groups += 1;
  });
  if (groups === 0) return { ...empty(fields), fields };
  const keys = new BigUint64Array(groups);
  let g0 = 0;
  runs((k) => {
    keys[g0++] = k;
  });
  const counts = new Uint32Array(groups);
  const find = (h: bigint): number => {
    let lo = 0;
    let hi = keys.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      // biome-ignore lint/style/noNonNullAssertion: hot path (benchmarked); mid is within 0..keys.length-1 by the binary search's bounds
      if (keys[mid]! < h) lo = mid + 1;
      // biome-ignore lint/style/noNonNullAssertion: hot path (benchmarked); mid is within 0..keys.length-1 by the binary search's bounds
      else if (keys[mid]! > h) hi = mid - 1;
      else return mid;
    }
    return -1;
  };
  // Rows are noted in file order, so each key's rows fill its slice in order.
  const groupOf = new Int32Array(hashes.length);
  for (let i = 0; i < hashes.length; i++) {
    // biome-ignore lint/style/noNonNullAssertion: hot path (benchmarked); i < hashes.length by the loop's condition
    const g = find(hashes[i]!);
    groupOf[i] = g;
    // biome-ignore lint/style/noNonNullAssertion: hot path (benchmarked); find() answers -1 or an index below groups, the length of counts
    if (g >= 0) counts[g]! += 1;
  }
  const starts = new Uint32Array(groups + 1);
  // biome-ignore lint/style/noNonNullAssertion: hot path (benchmarked); g < groups: counts has groups entries and starts groups + 1
  for (let g = 0; g < groups; g++) starts[g + 1] = starts[g]! + counts[g]!;
  const fill = starts.slice(0, groups);
  // biome-ignore lint/style/noNonNullAssertion: starts has groups + 1 entries
  const members = starts[groups]!;
  const rows = new Uint32Array(members);
  const after = new Uint8Array(members * width);
  for (let i = 0; i < hashes.length; i++) {
    // biome-ignore lint/style/noNonNullAssertion: hot path (benchmarked); groupOf has hashes.length entries and i < hashes.length
    const g = groupOf[i]!;
    if (g < 0) continue;
    // biome-ignore lint/style/noNonNullAssertion: hot path (benchmarked); g >= 0 (skipped above otherwise) and below groups, the length of fill
    const at = fill[g]!++;
    // biome-ignore lint/style/noNonNullAssertion: hot path (benchmarked); rowsOf has hashes.length entries (both subarrays of n) and i < hashes.length
    rows[at] = rowsOf[i]!;
    after.set(masks.subarray(i * width, (i + 1) * width), at * width);
  }
  // Suffix union within each key: a row's bits become its own and every later row's.
  for (let g = 0; g < groups; g++)
    // biome-ignore lint/style/noNonNullAssertion: hot path (benchmarked); g < groups and starts has groups + 1 entries
    for (let j = starts[g + 1]! - 2; j >= starts[g]!; j--)
      // biome-ignore lint/style/noNonNullAssertion: hot path (benchmarked); j and j + 1 are rows of group g's slice, so both bytes are within after
      for (let b = 0; b < width; b++) after[j * width + b]! |= after[(j + 1) * width + b]!;
  return { fields, keys, starts, rows, after, width };
}
