import { parse } from 'csv-parse/sync';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { csvCell, csvLine } from '../../src/platform/csv.js';

const FORMULA_START = /^[=+\-@\t\r]/;

describe('platform/csv', () => {
  it.each([
    ['=1+2', "'=1+2"],
    ['+14155550100', "'+14155550100"],
    ['-2', "'-2"],
    ['@SUM(A1)', "'@SUM(A1)"],
    ['\tcmd', `"'\tcmd"`],
    ['\r=1', `"'\r=1"`],
    ['=A1,"x"', `"'=A1,""x"""`],
    ['a=b', 'a=b'],
    [' lead', '" lead"'],
    ['a;b', '"a;b"'],
    ['', ''],
  ])('%j is written %j', (value, cell) => {
    expect(csvCell(value)).toBe(cell);
  });

  it('writes null as an empty cell and ends a line with CRLF', () => {
    expect(csvLine(['a', null, '=b'])).toBe("a,,'=b\r\n");
  });

  it('reads back as written, with a quote before exactly the cells a spreadsheet would run', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.string({ unit: fc.constantFrom('a', '=', '+', '-', '@', '\t', '\r', '\n', '"', ',', ';', ' ', "'") }),
          { minLength: 1, maxLength: 6 },
        ),
        (values) => {
          const [read] = parse(csvLine(values), { relax_column_count: true }) as string[][];
          expect(read).toEqual(values.map((v) => (FORMULA_START.test(v) ? `'${v}` : v)));
          for (const cell of read!) expect(cell).not.toMatch(FORMULA_START);
        },
      ),
      { numRuns: 500 },
    );
  });
});
