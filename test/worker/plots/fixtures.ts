// Shared by the plots area's unit tests: configs, tables from CSV, and a small XML
// well-formedness check (the drawings are strings: nothing here parses them but this).
import { expect } from 'vitest';
import { parseCsv } from '../../../src/plots/csv';
import type { PlotConfig, PlotType, Table } from '../../../src/plots/model';

export function config(type: PlotType, over: Partial<PlotConfig> = {}): PlotConfig {
  return {
    type,
    title: '',
    caption: '',
    colors: '',
    colorType: '',
    legend: { format: '', layout: '', position: '', type: '' },
    cell: { align: '', format: '', border: '', padding: '', text: '', width: '' },
    customCss: '',
    ...over,
  };
}

/** The table of a CSV that must read. */
export function table(csv: string): Table {
  const r = parseCsv(csv);
  if ('error' in r) throw new Error(`${r.error} (line ${r.line})`);
  return r.table;
}

/** A pandas-shaped frame: a date index, three series (one with gaps), `n` rows. */
export function frame(n: number): Table {
  let csv = 'date,Sales,Costs,Margin\n';
  for (let i = 0; i < n; i++) {
    const d = new Date(Date.UTC(2024, 0, 1) + i * 86_400_000).toISOString().slice(0, 10);
    csv += `${d},${(Math.sin(i / 5) * 100).toFixed(2)},${i * 3},${i % 4 === 0 ? '' : (Math.cos(i) * 20).toFixed(3)}\n`;
  }
  return table(csv);
}

/** A one-series table of `n` rows with a numeric index (a long line). */
export function longSeries(n: number): Table {
  const rows: string[][] = [];
  for (let i = 0; i < n; i++) rows.push([String(i), String(Math.sin(i / 50) * 10 + (i % 7))]);
  return { header: ['', 'value'], rows };
}

export const TYPES: PlotType[] = ['line', 'area', 'bar', 'sbar', 'gbar', 'hbar', 'scatter', 'donut', 'table', 'mtable'];

const NAME = /^[A-Za-z_][\w.:-]*$/;

/**
 * Fails unless `xml` is one well-formed element: tags balance, attributes are `name="value"`
 * without `<` or a raw `&`, no attribute repeats, text holds no raw `<` or `&` (entities
 * only), no comment, CDATA, processing instruction or DOCTYPE. (Plain checks, one `expect`
 * at the end: a drawing has thousands of tags.)
 */
export function expectWellFormed(xml: string): void {
  const problems: string[] = [];
  const check = (ok: boolean, what: string) => ok || problems.length > 5 || problems.push(what);
  const stack: string[] = [];
  let i = 0;
  let roots = 0;
  const entity = /^&(amp|lt|gt|quot|apos|#\d+|#x[0-9a-f]+);/i;
  const checkText = (t: string, where: string) => {
    for (let k = t.indexOf('&'); k >= 0; k = t.indexOf('&', k + 1))
      check(entity.test(t.slice(k, k + 12)), `raw & in ${where}: ${t.slice(k, k + 20)}`);
    check(!t.includes('<'), `raw < in ${where}`);
  };
  while (i < xml.length && problems.length === 0) {
    const lt = xml.indexOf('<', i);
    if (lt < 0) {
      checkText(xml.slice(i), 'trailing text');
      break;
    }
    if (stack.length === 0) check(xml.slice(i, lt).trim() === '', 'text outside the root');
    else checkText(xml.slice(i, lt), `<${stack.at(-1)}>`);
    const gt = xml.indexOf('>', lt);
    if (!check(gt > lt, 'an unclosed tag')) break;
    const tag = xml.slice(lt + 1, gt);
    i = gt + 1;
    if (tag.startsWith('/')) {
      const open = stack.pop();
      check(open === tag.slice(1), `<${open}> closed by <${tag}>`);
      continue;
    }
    check(!/^[!?]/.test(tag), `no comment, CDATA, PI or DOCTYPE: <${tag.slice(0, 20)}`);
    const selfClosing = tag.endsWith('/');
    const body = selfClosing ? tag.slice(0, -1) : tag;
    const name = body.split(/\s/, 1)[0]!;
    check(NAME.test(name), `tag name ${name}`);
    const attrs = body.slice(name.length);
    const seen = new Set<string>();
    const rest = attrs.replace(/\s+([\w:-]+)="([^"]*)"/g, (_, a: string, v: string) => {
      check(!seen.has(a), `attribute ${a} repeated on <${name}>`);
      seen.add(a);
      checkText(v, `${a}="…" on <${name}>`);
      return '';
    });
    check(rest.trim() === '', `attributes of <${name}>: ${attrs.slice(0, 80)}`);
    if (stack.length === 0) roots++;
    if (!selfClosing) stack.push(name);
  }
  check(stack.length === 0, `unclosed: ${stack.join(' ')}`);
  check(roots === 1, `${roots} root elements`);
  expect(problems).toEqual([]);
}

/** CSV as pandas' DataFrame.to_csv() writes it: the index first, quoted fields, ISO dates, an empty cell. */
export const PANDAS_CSV =
  ',date,"price, usd",volume\r\n0,2024-01-02,101.5,1200\r\n1,2024-01-03,"102,5",\r\n2,2024-01-04,99.25,900\r\n';

/** A small sales table as pandas writes it: an index, two numeric series. */
export const SALES = ',north,south\r\nQ1,12,7\r\nQ2,15,9\r\nQ3,11,14\r\nQ4,18,16\r\n';
