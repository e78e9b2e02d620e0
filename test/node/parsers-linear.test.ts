/**
 * Every parser that reads user text is linear in its input. Each one is fed adversarial
 * inputs (runs of spaces and tabs, unclosed openers, deep nesting, many short lines, one
 * long line, its own syntax repeated) of doubling size: the cost of 2n must stay under 3x
 * the cost of n. Then, at the entry's size cap, the two shapes that cost most at the top of
 * the doubling (linear, so still the costliest at the cap) must cost under a generous bound,
 * or at most RATIO times as much per character as they did there: a ratio of two timings of
 * the same run, so a slow or busy machine that is still linear passes, as does a parser whose
 * large result makes collections dearer while it stays under the bound.
 * Only the parser call is timed (median of several samples after a warm-up).
 */
import { describe, expect, it } from 'vitest';
import { parseBlocks } from '../../src/markup/block-parser';
import { assetRefs, contentRefs, renderMarkdown, splitFrontMatter, varRefs } from '../../src/markup/markdown';
import { htmlToText } from '../../src/markup/html-text';
import { prepareCustomCss } from '../../src/markup/page';
import { formatVar, varAttrProblem, VAR_DEFAULTS, type DocVar } from '../../src/docs/vars';
import { parseLayout, LayoutError } from '../../src/grids/layout';
import { parseMapping } from '../../src/grids/mapping';
import { parseGrid } from '../../src/grids/store';
import { chainProblem } from '../../src/jobs/chains';
import { moduleSyntaxProblem } from '../../src/jobs/code-syntax';
import { scheduleProblem } from '../../src/jobs/cron';
import { mailAuth } from '../../src/jobs/mail-auth';
import { checkUpload } from '../../src/core/sniff';
import { composeMail } from '../../src/mail/compose';
import { parseRecipientList } from '../../src/mail/rules';
import { mentionsIn } from '../../src/gql/values';
import { CONTENT_LIMIT } from '../../src/docs/kind';
import { LAYOUT_LIMIT, MAPPING_LIMIT } from '../../src/grids/kind';
import { ASSET_LIMIT } from '../../src/docs/assets';
import { COMMENT_LIMIT } from '../../src/core/thread/rules';
import { DEFAULT_BODY_LIMIT, KiB, MiB } from '../../src/core/http';
import { DATA_LIMIT, parseCsv } from '../../src/plots/csv';
import { parseInstructions } from '../../src/plots/selector';
import { colorsProblem, parseColors } from '../../src/plots/colors';
import { CELL_FILES, cellConfigProblem } from '../../src/plots/cell';
import { scopeCss } from '../../src/plots/css';
import { drawSvg } from '../../src/plots/svg';
import { drawText } from '../../src/plots/text';
import type { PlotConfig, PlotType } from '../../src/plots/model';

/**
 * The inbound message cap (INBOUND_LIMIT of src/jobs/inbound.ts, which loads the Workers runtime): a header is at most
 * that.
 */
const INBOUND_LIMIT = 25 * MiB;

// ------------------------------------------------------------------ timing

/**
 * A full collection before each size (node --expose-gc, vitest.node.config.mts): garbage of the previous size is not
 * billed to this one.
 */
const collect = (globalThis as { gc?: () => void }).gc ?? (() => undefined);

/** Milliseconds per call: the call repeated until 2 ms have passed (so tiny inputs are measurable). */
function perCall(run: () => unknown): number {
  let calls = 0;
  const start = performance.now();
  let elapsed = 0;
  do {
    run();
    calls++;
    elapsed = performance.now() - start;
  } while (elapsed < 2);
  return elapsed / calls;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Median cost of one call on `input`, after a warm-up call; the warm-up alone fails a parser far over `maxMs`. */
function cost(run: (input: string) => unknown, input: string, maxMs: number): number {
  // One collection per size, before its warm-up (one per sample made the collections most of the file's time).
  collect();
  const warm = performance.now();
  run(input);
  const first = performance.now() - warm;
  if (first >= maxMs) return first; // already over the bound: no need to sample it
  return median([0, 1, 2].map(() => perCall(() => run(input))));
}

/** Smallest size measured: the doubling starts here. */
const START = 1024;
/** Largest size of the doubling; a larger cap is then timed on its own (the bound), for the costliest shapes. */
const DOUBLING_TOP = 64 * 1024;
/**
 * Growth that fails: a linear parser costs about 2x for 2x the input, a quadratic one 4x
 * (less while its linear part still weighs): 3x tells them apart with room for noise.
 */
const RATIO = 3;
/**
 * Doublings in a row that must grow RATIO times to fail: a collection or a busy neighbour makes one or two, a
 * superlinear parser every one. Four: where the young generation overflows (recipient lists near 64 KiB), one
 * doubling costs 7x, and on a busy machine both its neighbours came out a little over 3x.
 */
const IN_A_ROW = 4;
/** Below this cost at 2n, a ratio is noise, not growth. */
const NOISE_MS = 0.5;

/**
 * Feeds `run` inputs made by `make(size)` at sizes doubling up to `cap` (characters; up to
 * DOUBLING_TOP): fails when 2n costs RATIO times n or more at IN_A_ROW
 * doublings in a row (a superlinear parser keeps growing; a collector's step or a busy
 * neighbour happens once or twice: the last doublings are confirmed sizes further), or when a size costs
 * `maxMs` or more; it stops there (a superlinear parser never reaches the sizes where it
 * would stall the suite).
 */
function expectLinear(
  run: (input: string) => unknown,
  make: (size: number) => string,
  cap: number,
  maxMs = 1000,
): [size: number, ms: number] {
  const sizes: number[] = [];
  for (let s = Math.min(cap, DOUBLING_TOP); s >= Math.min(START, cap); s = Math.floor(s / 2)) sizes.unshift(s);
  let prev = cost(run, make(sizes[0]!), maxMs);
  let last = sizes[0]!;
  // The doublings in a row that grew RATIO times or more (a step past the last size confirms one).
  const suspects: string[] = [];
  for (let i = 1; i < sizes.length + suspects.length; i++) {
    const size = i < sizes.length ? sizes[i]! : sizes.at(-1)! * 2 ** (i - sizes.length + 1);
    const t = cost(run, make(size), maxMs);
    expect(t < maxMs, `size ${size}: ${t.toFixed(1)} ms (bound ${maxMs} ms)`).toBe(true);
    const step = `size ${size / 2} → ${size}: ${prev.toFixed(3)} ms → ${t.toFixed(3)} ms`;
    const grows = t >= RATIO * prev && t > NOISE_MS;
    expect(!(grows && suspects.length >= IN_A_ROW - 1), `superlinear: ${[...suspects, step].join(', then ')}`).toBe(
      true,
    );
    if (grows) suspects.push(step);
    else suspects.length = 0;
    prev = t;
    last = size;
  }
  return [last, prev];
}

/**
 * The cost at the cap itself, per character, must stay under RATIO times the cost per character at `size` (`ms`, the
 * top of the doubling), or under `maxMs`: the best of up to three runs (a busy neighbour slows one). Either bound
 * alone fails good parsers: time on a slow machine, the ratio where a large live result makes collections dearer.
 */
function expectLinearToCap(
  run: (input: string) => unknown,
  make: (size: number) => string,
  cap: number,
  [size, ms]: [number, number],
  maxMs = 1000,
) {
  const input = make(cap);
  const bound = Math.max(RATIO * ms * (cap / size), maxMs);
  let t = Infinity;
  for (let i = 0; i < 3 && t >= bound; i++) {
    collect();
    const start = performance.now();
    run(input);
    t = Math.min(t, performance.now() - start);
  }
  expect(
    t < bound,
    `the cap ${cap}: ${t.toFixed(1)} ms, ${ms.toFixed(2)} ms at ${size} (bound ${bound.toFixed(0)} ms)`,
  ).toBe(true);
}

// ------------------------------------------------------------------ inputs

/** `unit` repeated to `size` characters, between `head` and `tail`. */
const fill =
  (unit: string, head = '', tail = '') =>
  (size: number) =>
    head + unit.repeat(Math.max(1, Math.floor((size - head.length - tail.length) / unit.length))) + tail;

/** The shapes every text parser gets. */
const GENERIC: Record<string, (size: number) => string> = {
  'spaces between words': fill(' ', 'a', 'b'),
  'spaces before a newline': fill(' ', 'a', '\nb'),
  'tabs between words': fill('\t', 'a', 'b'),
  'spaces and tabs': fill(' \t', 'a', 'b'),
  'unclosed {{': fill('{{'),
  'unclosed {': fill('{'),
  'unclosed [': fill('['),
  'unclosed (': fill('('),
  'unclosed <': fill('<'),
  'unclosed `': fill('`'),
  'nested brackets': (size) => '['.repeat(size / 2) + ']'.repeat(size / 2),
  'nested quotes': fill('> '),
  'many short lines': fill('a\n'),
  'many blank lines': fill('\n'),
  'one long line': fill('a'),
  'words and stars': fill('a *b* _c_ '),
};

type Parser = {
  name: string;
  cap: number;
  run: (input: string) => unknown;
  shapes: Record<string, (size: number) => string>;
  /** The bound of each size of the doubling, and at the cap unless it grew less than RATIO per character (1000 ms unless given). */
  maxMs?: number;
};

const silently = (f: (s: string) => unknown) => (s: string) => {
  try {
    return f(s);
  } catch (err) {
    if (err instanceof LayoutError) return undefined;
    return String(err);
  }
};

const docVar = (over: Partial<DocVar>): DocVar => ({ name: 'x', ...VAR_DEFAULTS, ...over });
const enc = new TextEncoder();

/** A plot's config entry cap (64 KiB: what the plot kind accepts in each config/ entry). */
const PLOT_CONFIG_LIMIT = 64 * KiB;

/** A plot config with instructions in every language (colours, cell styles), for the drawings timed on data. */
const plotConfig = (type: PlotType): PlotConfig => ({
  type,
  title: 'Timed',
  caption: 'A caption',
  colors: '1: 1 bg red,neutral,green(_,0,_)^lin\n2 2 bg blue',
  colorType: '',
  legend: { format: '', layout: '', position: 'bottom', type: '' },
  cell: {
    align: ': 1: >',
    format: '1: 1: ,.2f',
    border: '0 : b 1',
    padding: ': : x 1',
    text: '0 : b',
    width: ': 0 x 200',
  },
  customCss: '.bar { fill: red }',
});

/** The shapes of a plot's CSV data: what pandas writes, and what it never would. */
const CSV_SHAPES: Record<string, (size: number) => string> = {
  ...GENERIC,
  'dated rows': fill('2024-01-01,1.5,,3\n', 'date,a,b,c\n'),
  'category rows': fill('abc,1,-2\n', ',a,b\n'),
  'quoted fields': fill('"a,""b""","c\nd"\n', 'x,y\n'),
  'doubled quotes': fill('""', '"'),
  'unclosed quote': fill('a', ',"'),
  'text after quotes': fill('"a"b,'),
  'crlf rows': fill('x,1\r\n', ',a\r\n'),
  'blank lines': fill('\n', ',a,b\nx,1,2\n', 'y,1,2\n'),
  'wide rows': fill(',1'.repeat(255) + '\n', Array.from({ length: 256 }, (_, i) => `c${i}`).join(',') + '\n'),
};

const PARSERS: Parser[] = [
  {
    name: 'section blocks (parseBlocks)',
    cap: CONTENT_LIMIT,
    run: parseBlocks,
    // About 1 s at the cap on the 2-core CI machine when it is quiet (1,054 ms measured once).
    maxMs: 1500,
    shapes: {
      ...GENERIC,
      'parameter line of spaces': fill(' ', '{{ callout a', 'b\n'),
      'parameter line of tabs': fill('\t', '{{ callout a', 'b\n'),
      'parameter lines of spaces': fill('  a   :   b   \n', '{{ callout\n'),
      'openers without closers': fill('{{ callout\n}}\nx\n'),
      'unknown openers': fill('{{ zz\n'),
      'closers on text lines': fill('text {{ /callout }}\n'),
      'openers with text': fill('{{ callout }} text\n'),
      'nested blocks': (size) => '{{ callout }}\n'.repeat(size / 28) + '{{ /callout }}\n'.repeat(size / 28),
      fences: fill('```\n{{ /callout }}\n'),
      '}} runs': fill('}}', '{{ callout '),
    },
  },
  {
    name: 'markdown (renderMarkdown)',
    cap: CONTENT_LIMIT,
    run: (s) => renderMarkdown(s),
    // 3.6-3.9 s at the cap for 1 MiB of paragraphs on the 2-core CI machine (4.4 s measured once).
    maxMs: 5000,
    shapes: {
      ...GENERIC,
      'parameter line of spaces': fill(' ', '{{ callout a', 'b\n'),
      paragraphs: fill('a\n\n'),
      'paragraphs and headings': fill('a\n# h\n'),
      'list items': fill('- a\n  b\n'),
      'variable references': fill('{/u/a/d/b/v/c} '),
      'unclosed references': fill('{/u/'),
      'inline pieces': fill('a `b` '),
      html: fill('<div>a</div>\n'),
    },
  },
  {
    // The e-mail's HTML part: markdown rendered for mail, styled inline, in its document, size-checked.
    name: 'mail HTML (composeMail)',
    cap: CONTENT_LIMIT,
    run: (s) => composeMail(new Map([['content', s]]), 'm', undefined, { viewUrl: 'https://h/u/a/m/b' }),
    // Markdown plus mail styling: 6.1 s measured once at the cap on the 2-core CI machine.
    maxMs: 7500,
    shapes: {
      ...GENERIC,
      paragraphs: fill('a\n\n'),
      html: fill('<div>a</div>\n'),
      buttons: fill('[a](https://h "button")\n\n'),
      tables: fill('| a | b |\n|:-|-:|\n| c | d |\n\n'),
      callouts: fill('{{ callout }}\nx `c`\n{{ /callout }}\n'),
    },
  },
  {
    name: 'variable references (varRefs)',
    cap: CONTENT_LIMIT,
    run: varRefs,
    maxMs: 4000,
    shapes: { ...GENERIC, paragraphs: fill('a\n\n'), references: fill('{/u/a/d/b/v/c} ') },
  },
  {
    name: 'asset references (assetRefs)',
    cap: CONTENT_LIMIT,
    run: assetRefs,
    maxMs: 4000,
    shapes: { ...GENERIC, images: fill('![a](assets/b.png) ') },
  },
  {
    name: 'references a write by someone other than the owner is checked for (contentRefs)',
    cap: CONTENT_LIMIT,
    run: contentRefs,
    // Sections, then every markdown piece lexed, as the renderer does (bound as renderMarkdown's).
    maxMs: 4000,
    shapes: {
      ...GENERIC,
      references: fill('{/u/a/d/b/v/c} '),
      attachments: fill('{{ attachment\n  /u/a/d/b\n}}\n{{ /attachment }}\n'),
      'nested authors': fill('{{ callout }}\n{{ author\n  a\n}}\n'),
    },
  },
  {
    name: 'front matter (splitFrontMatter)',
    cap: CONTENT_LIMIT,
    run: splitFrontMatter,
    shapes: frontMatter({ ...GENERIC, 'flow nesting': (size) => '['.repeat(size / 2), keys: fill('a: b\n') }),
  },
  {
    name: 'plain text of HTML (htmlToText)',
    cap: CONTENT_LIMIT,
    run: htmlToText,
    shapes: {
      ...GENERIC,
      'unclosed <li': fill('<li'),
      'unclosed <br': fill('<br'),
      'cells and spaces': fill('</td> '),
      entities: fill('&amp;&#65;&#x41;&zz'),
      'unclosed entity': fill('a', '&'),
    },
  },
  {
    name: 'custom CSS (prepareCustomCss)',
    cap: DEFAULT_BODY_LIMIT,
    run: (s) => prepareCustomCss(s, () => null),
    shapes: { ...GENERIC, 'url( and spaces': fill(' ', 'url(', 'x'), urls: fill('url( assets/a.png ) ') },
  },
  {
    name: 'variables (varAttrProblem, formatVar)',
    cap: 4096,
    run: (s) => {
      for (const attr of ['value', 'format', 'about', 'threshold', 'type'] as const)
        varAttrProblem(attr, s, docVar({}));
      formatVar(docVar({ value: s.slice(0, 50) }));
      formatVar(docVar({ type: 'date', value: '2024-01-01', format: s.slice(0, 50) }));
    },
    shapes: { ...GENERIC, thresholds: fill('1,'), numbers: fill('1') },
  },
  { name: 'grid layout (parseLayout)', cap: LAYOUT_LIMIT, run: silently(parseLayout), shapes: layoutShapes() },
  { name: 'grid (parseGrid)', cap: LAYOUT_LIMIT, run: (s) => parseGrid(s, s, 1), shapes: layoutShapes() },
  {
    name: 'grid mapping (parseMapping)',
    cap: MAPPING_LIMIT,
    run: parseMapping,
    shapes: { ...GENERIC, bindings: fill('A => /u/a/p/b, h=t, c=f, x=y\n'), 'long binding': fill(',k=v', 'A => b') },
  },
  {
    name: 'job code (moduleSyntaxProblem: acorn)',
    cap: 1 * MiB,
    run: moduleSyntaxProblem,
    // A whole 1 MiB module is about 1 s of parsing on a loaded 2-core machine (once per write).
    maxMs: 3000,
    shapes: {
      ...GENERIC,
      // oxlint-disable-next-line no-template-curly-in-string -- JavaScript source for the parser, template literal included
      statements: fill('let a = [1, { b: `c${d}` }];\n'),
      'nested calls': (size) => 'f('.repeat(size / 4) + ')'.repeat(size / 4),
      'unclosed template': fill('`${'),
      'regex or division': fill('a / b / c /'),
    },
  },
  {
    name: 'chains (parseChains)',
    cap: 16 * KiB,
    run: chainProblem,
    shapes: {
      ...GENERIC,
      'arrows without spaces': fill('<-', '', ' x y'),
      'arrows and spaces': fill(' <- ', 'a', ' x y'),
      edges: (size) => Array.from({ length: size / 12 }, (_, i) => `s${i} -> s${i + 1}`).join('\n'),
      'one long edge line': fill(' -> a'),
      comments: fill(' #'),
    },
  },
  {
    name: 'cron (scheduleProblem)',
    cap: 512,
    run: scheduleProblem,
    shapes: { ...GENERIC, 'TZ and spaces': fill(' ', 'TZ=UTC', '* * * * *') },
  },
  {
    name: 'mail authentication headers (mailAuth)',
    cap: INBOUND_LIMIT,
    // 25 MiB of header, comments stripped in up to 8 passes: linear, but seconds at the cap
    maxMs: 6000,
    run: (s) =>
      mailAuth([
        { key: 'authentication-results', value: s },
        { key: 'received-spf', value: s },
      ]),
    shapes: {
      ...GENERIC,
      comments: fill('(a'),
      'nested comments': (size) => '('.repeat(size / 2) + ')'.repeat(size / 2),
      'results and spaces': fill('dkim  =  ', 'mx; '),
    },
  },
  {
    name: 'SVG sniffing (checkUpload)',
    cap: ASSET_LIMIT,
    run: (s) => checkUpload('image/svg+xml', enc.encode(s)),
    shapes: {
      ...Object.fromEntries(
        Object.entries(GENERIC).map(([k, make]) => [k, (size: number) => `<svg>${make(size - 11)}</svg>`]),
      ),
      'nested elements': (size) => '<svg>' + '<g>'.repeat(size / 8) + '</g>'.repeat(size / 8) + '</svg>',
      'many attributes': (size) => '<svg ' + Array.from({ length: size / 10 }, (_, i) => `a${i}="b"`).join(' ') + '/>',
      entities: fill('&amp;', '<svg>', '</svg>'),
      'unclosed comment': fill('-', '<svg><!--'),
    },
  },
  {
    name: 'recipient lists (parseRecipientList)',
    cap: 256 * KiB,
    run: parseRecipientList,
    shapes: { ...GENERIC, items: fill('@a a@b.c +o~g '), 'long address': fill('a.', '', '@b') },
  },
  {
    name: 'plot data (parseCsv)',
    cap: DATA_LIMIT,
    run: parseCsv,
    shapes: CSV_SHAPES,
  },
  {
    // The whole drawing of a plot's data: bounded by its caps (rows drawn, points, bars, cells), linear below them.
    name: 'plot drawings of data (parseCsv, drawSvg and drawText of a line, bars and a table)',
    cap: DATA_LIMIT,
    run: (s) => {
      const r = parseCsv(s);
      if ('error' in r) return r;
      for (const type of ['line', 'bar', 'table'] as const) {
        drawSvg(r.table, plotConfig(type), { scope: 'p', name: 'n', size: { width: 800, height: 450 } });
        drawText(r.table, plotConfig(type), { width: 80, ansi: true });
      }
    },
    // About 0.8 s measured once at the cap for 256 columns on the 2-core machine.
    maxMs: 3000,
    shapes: {
      'dated rows': CSV_SHAPES['dated rows']!,
      'category rows': CSV_SHAPES['category rows']!,
      'wide rows': CSV_SHAPES['wide rows']!,
      'numbered rows': (size) =>
        ',v\n' + Array.from({ length: Math.floor(size / 12) }, (_, i) => `${i},${i % 97}`).join('\n'),
    },
  },
  {
    name: 'plot selectors (parseInstructions)',
    cap: PLOT_CONFIG_LIMIT,
    run: (s) => parseInstructions(s),
    shapes: {
      ...GENERIC,
      instructions: fill(': : bg red\n'),
      'long lists': fill('1,', '', ' 2 x'),
      'long slices': fill('1:2:3,', '-1:', ' : x'),
      colons: fill(':', '', ' : x'),
      comments: fill(' --', ': : x'),
    },
  },
  {
    name: 'plot colours (colorsProblem, parseColors)',
    cap: PLOT_CONFIG_LIMIT,
    run: (s) => [colorsProblem(s), parseColors(s)],
    shapes: {
      ...GENERIC,
      static: fill(': : bg gray-300 pink-500\n'),
      dynamic: fill('1: 1: bg bad,neutral,good(_,0,_)^lin\n'),
      'plain colours': fill('blue-300\n'),
      'long selector': fill('1,', ': ', ' bg red'),
      'long dynamic': fill('red,', ': : bg ', 'green'),
      'unclosed domain': fill('_,', ': : bg red,green('),
    },
  },
  {
    name: 'plot table cells (cellConfigProblem, every file)',
    cap: PLOT_CONFIG_LIMIT,
    run: (s) => CELL_FILES.map((f) => cellConfigProblem(f, s)),
    shapes: {
      ...GENERIC,
      align: fill(': 1: >^\n'),
      format: fill('1: 1: ,.2f\n'),
      border: fill(': : a 1 gray-400\n'),
      text: fill('0 : bi lg mono red\n'),
      'long format': fill('%Y', ': : '),
      'long style': fill('b', ': : '),
    },
  },
  {
    name: 'plot custom CSS (scopeCss)',
    cap: PLOT_CONFIG_LIMIT,
    run: (s) => scopeCss(s, 'plot-1'),
    shapes: {
      ...GENERIC,
      rules: fill('.a, #b > c:hover { fill: red; stroke: blue }\n'),
      media: fill('@media (min-width: 1px) { .a { fill: red } }\n'),
      'nested media': (size) => '@media a{'.repeat(size / 20) + '.a{b:c}' + '}'.repeat(size / 20),
      'unclosed media': fill('@media a{'),
      'unclosed strings': fill('"', '.a{content:'),
      'unclosed comments': fill('/*'),
      urls: fill('.a{background:url(x)}'),
      'long selector': fill('.a ', '', '{b:c}'),
      'long declarations': fill('a:b;', '.x{', '}'),
      escapes: fill('\\', '.a'),
      'stray braces': fill('}{'),
    },
  },
  {
    name: 'mentions (mentionsIn)',
    cap: COMMENT_LIMIT,
    run: mentionsIn,
    shapes: { ...GENERIC, mentions: (size) => Array.from({ length: size / 8 }, (_, i) => `@u${i}`).join(' ') },
  },
];

/** Each shape as the YAML of a front matter block. */
function frontMatter(shapes: Record<string, (size: number) => string>): Record<string, (size: number) => string> {
  return Object.fromEntries(
    Object.entries(shapes).map(([k, make]) => [k, (size: number) => `---\n${make(size - 10)}\n---\n`]),
  );
}

function layoutShapes(): Record<string, (size: number) => string> {
  return {
    ...GENERIC,
    'one long line, many short lines': (size) => 'a'.repeat(size / 2) + '\n'.repeat(size / 2),
    'a wide box': (size) => {
      const w = Math.floor(Math.sqrt(size));
      const edge = `+${'-'.repeat(w - 2)}+\n`;
      return edge + `|${' '.repeat(w - 2)}|\n`.repeat(w - 2) + edge;
    },
    'a grid of boxes': (size) => {
      const w = Math.floor(Math.sqrt(size) / 4) * 4 + 1;
      const edge = `${'+---'.repeat((w - 1) / 4)}+\n`;
      const row = `${'|{A}'.repeat((w - 1) / 4)}|\n`;
      return edge + (row + edge).repeat((w - 1) / 2 / 2);
    },
    braces: fill('{+|-}'),
  };
}

describe('every parser of user text is linear up to its entry cap', () => {
  for (const p of PARSERS) {
    describe(p.name, () => {
      // The cost of each shape at the top of its doubling (the tests of one file run in order).
      const top: [string, [number, number]][] = [];
      for (const [shape, make] of Object.entries(p.shapes)) {
        it(shape, () => void top.push([shape, expectLinear(p.run, make, p.cap, p.maxMs)]));
      }
      if (p.cap > DOUBLING_TOP)
        it(`at its cap (${p.cap} characters), the two costliest shapes cost under ${p.maxMs ?? 1000} ms or ${RATIO}x per character what they cost at the top of the doubling`, () => {
          expect(top.length).toBe(Object.keys(p.shapes).length);
          for (const [shape, atTop] of top.sort((a, b) => b[1][1] - a[1][1]).slice(0, 2))
            expectLinearToCap(p.run, p.shapes[shape]!, p.cap, atTop, p.maxMs);
        });
    });
  }
});

describe('the linearity check itself', () => {
  // indexOf from every position of a text without the character: n²/2 comparisons.
  const quadratic = (s: string) => {
    let n = 0;
    for (let i = 0; i < s.length; i++) n += s.indexOf('z', i);
    return n;
  };
  it('fails a quadratic parser, long before the sizes where it would stall the suite', () => {
    expect(() => expectLinear(quadratic, fill('a'), CONTENT_LIMIT)).toThrow(/superlinear/);
  });
  it('passes a linear one', () => {
    expectLinear((s) => s.split('a').length, fill('ab'), CONTENT_LIMIT);
  });
});
