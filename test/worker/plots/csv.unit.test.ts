// A plot's data as pandas' DataFrame.to_csv() writes it, read into a table; every error names its line.
import { describe, expect, it } from 'vitest';
import { DATA_LIMIT, MAX_COLUMNS, MAX_ROWS, parseCsv } from '../../../src/plots/csv';

const ok = (text: string) => {
  const r = parseCsv(text);
  if ('error' in r) throw new Error(`${r.error} (line ${r.line})`);
  return r.table;
};
const err = (text: string) => {
  const r = parseCsv(text);
  if ('table' in r) throw new Error('read without an error');
  return r;
};

describe('CSV as pandas writes it', () => {
  it('a header whose first cell (the index name) is empty, an index column, numbers', () => {
    expect(ok(',A,B\nx,1,2.5\ny,3,-4e-05\n')).toEqual({
      header: ['', 'A', 'B'],
      rows: [
        ['x', '1', '2.5'],
        ['y', '3', '-4e-05'],
      ],
    });
  });

  it('a named index and ISO dates stay text', () => {
    const t = ok('date,close\n2024-01-01,1.5\n2024-01-02 00:00:00,2\n2024-01-03T12:00:00+01:00,3\n');
    expect(t.header).toEqual(['date', 'close']);
    expect(t.rows.map((r) => r[0])).toEqual(['2024-01-01', '2024-01-02 00:00:00', '2024-01-03T12:00:00+01:00']);
  });

  it('empty cells (NaN) are empty strings, also at the end of a row', () => {
    expect(ok(',a,b,c\n0,,1,\n1,2,,\n').rows).toEqual([
      ['0', '', '1', ''],
      ['1', '2', '', ''],
    ]);
  });

  it('RFC 4180 quoting: commas, doubled quotes and line breaks inside quotes', () => {
    const t = ok(',name,note\n0,"Smith, J.","he said ""hi"""\n1,"two\nlines","a\r\nb"\n');
    expect(t.rows).toEqual([
      ['0', 'Smith, J.', 'he said "hi"'],
      ['1', 'two\nlines', 'a\r\nb'],
    ]);
  });

  it('a quoted header cell and an empty quoted field', () => {
    expect(ok('"",A\n"",""\n')).toEqual({ header: ['', 'A'], rows: [['', '']] });
  });

  it('\\r\\n line ends (lineterminator) and a UTF-8 BOM (utf-8-sig) read the same', () => {
    expect(ok('\ufeff,A\r\nx,1\r\ny,2\r\n')).toEqual(ok(',A\nx,1\ny,2\n'));
  });

  it('no final line break, and blank lines between rows, are fine', () => {
    expect(ok(',A\nx,1\n\ny,2').rows).toEqual([
      ['x', '1'],
      ['y', '2'],
    ]);
  });

  it('a quote inside an unquoted field is kept as written (pandas reads it so)', () => {
    expect(ok(',A\nx,5"\n').rows).toEqual([['x', '5"']]);
  });

  it('empty data is an empty table, not an error (a plot without data yet)', () => {
    expect(ok('')).toEqual({ header: [], rows: [] });
    expect(ok('\n\n  \n')).toEqual({ header: [], rows: [] });
  });

  it('non-ASCII text (and astral characters) survive', () => {
    expect(ok(',naïve,数据\n🙂,1,2\n').rows[0]).toEqual(['🙂', '1', '2']);
  });
});

describe('CSV errors name their 1-based line', () => {
  it('an unterminated quote: the line it opened on', () => {
    expect(err(',A\nx,1\ny,"open\nstill\n')).toEqual({ error: expect.stringMatching(/line 3.*never closed/), line: 3 });
  });

  it('a row with more or fewer fields than the header', () => {
    expect(err(',A,B\nx,1,2\ny,1\n')).toMatchObject({
      line: 3,
      error: expect.stringMatching(/line 3 has 2 fields, the header 3/),
    });
    expect(err(',A\nx,1\ny,1,2\n')).toMatchObject({ line: 3 });
  });

  it('line numbers count the line breaks inside quoted fields', () => {
    expect(err(',A\n"a\nb\nc",1\nx\n').line).toBe(5);
  });

  it('text after a closing quote', () => {
    expect(err(',A\nx,"a"b\n')).toMatchObject({ line: 2, error: expect.stringMatching(/after a closing quote/) });
  });

  it('more than MAX_COLUMNS columns', () => {
    expect(err(Array.from({ length: MAX_COLUMNS + 1 }, (_, i) => `c${i}`).join(',') + '\n')).toMatchObject({
      line: 1,
      error: expect.stringContaining('MAX_COLUMNS'),
    });
    expect(ok(Array.from({ length: MAX_COLUMNS }, (_, i) => `c${i}`).join(',') + '\n').header).toHaveLength(
      MAX_COLUMNS,
    );
  });

  it('more than MAX_ROWS rows: the first line too many', () => {
    const text = ',A\n' + 'x,1\n'.repeat(MAX_ROWS);
    expect(ok(text).rows).toHaveLength(MAX_ROWS);
    expect(err(text + 'y,2\n')).toMatchObject({ line: MAX_ROWS + 2, error: expect.stringContaining('MAX_ROWS') });
  });

  it('more than DATA_LIMIT bytes (multi-byte characters counted as bytes)', () => {
    expect(err('é'.repeat(DATA_LIMIT / 2 + 1))).toMatchObject({
      line: 1,
      error: expect.stringContaining('DATA_LIMIT'),
    });
    expect(DATA_LIMIT).toBe(2 * 1024 * 1024);
  });
});
