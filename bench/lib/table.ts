export interface Row {
  section: string;
  measure: string;
  value: string;
  reference: string;
  ratio: string;
  target: string;
  met: boolean | null;
}

export function printTable(rows: Row[]): string {
  const header: Row = {
    section: 'section',
    measure: 'measure',
    value: 'value',
    reference: 'reference',
    ratio: 'ratio',
    target: 'target',
    met: null,
  };
  const cells = (r: Row) => [
    r.section,
    r.measure,
    r.value,
    r.reference,
    r.ratio,
    r.target,
    r.met === null ? (r === header ? 'met' : '') : r.met ? 'yes' : 'NO',
  ];
  const all = [header, ...rows].map(cells);
  const widths = all[0]!.map((_, i) => Math.max(...all.map((c) => c[i]!.length)));
  const line = (c: string[]) => `| ${c.map((x, i) => x.padEnd(widths[i]!)).join(' | ')} |`;
  const out = [line(all[0]!), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...all.slice(1).map(line)].join(
    '\n',
  );
  return out;
}
