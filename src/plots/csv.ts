/**
 * A plot's `data` read into a Table: CSV exactly as pandas' `DataFrame.to_csv()` writes it
 * (a header row whose first cell names the index, often empty; the index in the first
 * column; RFC 4180 quoting; `\n` or `\r\n`; an optional UTF-8 BOM). Cells stay text: what
 * a cell means (a number, an ISO date, a gap) is decided where it is drawn.
 *
 * One pass over the text, character codes only (no regular expression runs over the input),
 * so the cost is linear in its length. Errors name the 1-based line they were found on.
 */
import type { Table } from './model';

/** Largest `data` accepted, in UTF-8 bytes (the route answers 413 above it). */
export const DATA_LIMIT = 2 * 1024 * 1024;
/** Most data rows (the header not counted) a plot draws from. */
export const MAX_ROWS = 100_000;
/** Most columns (the index counted) a plot draws from. */
export const MAX_COLUMNS = 256;

export type CsvResult = { table: Table } | { error: string; line: number };

const QUOTE = 34;
const COMMA = 44;
const LF = 10;
const CR = 13;

/** UTF-8 length of `text` without encoding it (a surrogate pair is 4 bytes, counted as 2 + 2). */
function utf8Length(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    n += c < 0x80 ? 1 : c < 0x800 ? 2 : c >= 0xd800 && c <= 0xdfff ? 2 : 3;
  }
  return n;
}

export function parseCsv(text: string): CsvResult {
  if (text.length > DATA_LIMIT || utf8Length(text) > DATA_LIMIT)
    return { error: `the data is larger than ${DATA_LIMIT} bytes (DATA_LIMIT)`, line: 1 };
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const n = text.length;
  // Nothing but blank lines: a plot without data yet (drawn as "no data", not refused).
  let blank = true;
  for (let k = i; k < n && blank; k++) {
    const c = text.charCodeAt(k);
    blank = c === LF || c === CR || c === 32 || c === 9;
  }
  if (blank) return { table: { header: [], rows: [] } };

  let line = 1;
  let header: string[] | undefined;
  const rows: string[][] = [];
  while (i < n) {
    const recordLine = line;
    const fields: string[] = [];
    // An empty line between records: pandas never writes one for more than one column, a hand-written file often has.
    const c0 = text.charCodeAt(i);
    if ((c0 === LF || c0 === CR) && header && header.length > 1) {
      i += c0 === CR && text.charCodeAt(i + 1) === LF ? 2 : 1;
      line++;
      continue;
    }
    // One record: fields until an unquoted line break or the end.
    for (;;) {
      if (text.charCodeAt(i) === QUOTE) {
        const openLine = line;
        i++;
        let value = '';
        let start = i;
        for (;;) {
          const q = text.indexOf('"', i);
          // Line breaks inside the quotes still count as lines of the file.
          for (let k = i; k < (q < 0 ? n : q); k++) {
            const c = text.charCodeAt(k);
            if (c === LF || (c === CR && text.charCodeAt(k + 1) !== LF)) line++;
          }
          if (q < 0) return { error: `a quoted field opened on line ${openLine} is never closed`, line: openLine };
          if (text.charCodeAt(q + 1) === QUOTE) {
            value += text.slice(start, q + 1);
            i = q + 2;
            start = i;
            continue;
          }
          value += text.slice(start, q);
          i = q + 1;
          break;
        }
        fields.push(value);
        const c = i < n ? text.charCodeAt(i) : LF;
        if (c !== COMMA && c !== LF && c !== CR)
          return { error: `text after a closing quote on line ${line} (a field is quoted whole or not at all)`, line };
      } else {
        // An unquoted field runs to the next comma or line break; a quote inside it is kept as written (pandas reads it so).
        const start = i;
        while (i < n) {
          const c = text.charCodeAt(i);
          if (c === COMMA || c === LF || c === CR) break;
          i++;
        }
        fields.push(text.slice(start, i));
      }
      if (i < n && text.charCodeAt(i) === COMMA) {
        i++;
        continue;
      }
      break;
    }
    // The record's line break (or the end of the text).
    if (i < n) {
      i += text.charCodeAt(i) === CR && text.charCodeAt(i + 1) === LF ? 2 : 1;
      line++;
    }
    if (!header) {
      if (fields.length > MAX_COLUMNS)
        return { error: `the header has ${fields.length} columns: at most ${MAX_COLUMNS} (MAX_COLUMNS)`, line: 1 };
      header = fields;
      continue;
    }
    if (fields.length !== header.length)
      return {
        error: `line ${recordLine} has ${fields.length} field${fields.length === 1 ? '' : 's'}, the header ${header.length}`,
        line: recordLine,
      };
    if (rows.length === MAX_ROWS)
      return { error: `more than ${MAX_ROWS} rows (MAX_ROWS): line ${recordLine} is one too many`, line: recordLine };
    rows.push(fields);
  }
  return { table: { header: header ?? [], rows } };
}
