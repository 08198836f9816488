/**
 * The one CSV writer for every file Parley produces (import rejects, the
 * consent export): RFC 4180 lines ending in CRLF.
 *
 * A cell starting with `=`, `+`, `-`, `@`, a tab or a carriage return is
 * prefixed with a single quote, so a spreadsheet shows it as text instead of
 * running it as a formula (CSV injection; OWASP's advice). This applies to
 * legitimate values too: `+14155550100` is written `'+14155550100`.
 *
 * A cell is quoted (quotes doubled) when it holds a quote, comma, semicolon,
 * tab or line break, or starts or ends with white space, so that reading the
 * file back gives every value exactly as written here.
 */
export function csvCell(value: string | null): string {
  if (value === null) return '';
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n;\t]/.test(safe) || safe !== safe.trim() ? `"${safe.replaceAll('"', '""')}"` : safe;
}

/** One CSV line, CRLF included. */
export function csvLine(values: readonly (string | null)[]): string {
  return `${values.map(csvCell).join(',')}\r\n`;
}
