/**
 * The styles of blocks: fixed tables (spacing, sides, font sizes and styles, callout kinds)
 * and strictly validated colours, as declarations (inline styles for e-mail) and as the
 * classes documents use (`blocksCss`): never raw CSS. Pure.
 */
/** One CSS declaration: property and value. */
export type Decl = [prop: string, value: string];

/** Colours: `#rgb`, `#rgba`, `#rrggbb`, `#rrggbbaa` or a plain name (letters only). */
const COLOR = /^(#[0-9a-fA-F]{3,4}|#[0-9a-fA-F]{6}|#[0-9a-fA-F]{8}|[a-zA-Z]{3,30})$/;
const SPACING = ['0', '4px', '8px', '16px', '24px', '32px'];
const SIDES: Record<string, string[]> = {
  l: ['left'],
  r: ['right'],
  t: ['top'],
  b: ['bottom'],
  x: ['left', 'right'],
  y: ['top', 'bottom'],
  a: ['top', 'right', 'bottom', 'left'],
};

/** The items of a list parameter: `[l1, t2 red]`, `l1, t2` or one item. */
function listItems(v: string): string[] {
  return v
    .replace(/^\s*\[|\]\s*$/g, '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

function colorOf(v: string | undefined): string | null {
  const c = v?.trim().split(/\s+/)[0];
  return c && COLOR.test(c) ? c : null;
}

/** Declarations of the common parameters: padding/p, margin/m, border/b, fg, bg. Invalid items are ignored. */
export function commonDecls(params: Map<string, string>): Decl[] {
  const out: Decl[] = [];
  const spacing = (prop: 'padding' | 'margin', v: string | undefined) => {
    for (const item of listItems(v ?? '')) {
      const m = /^([lrtbxya])([0-5])?$/.exec(item);
      if (!m) continue;
      for (const side of SIDES[m[1]!]!) out.push([`${prop}-${side}`, SPACING[Number(m[2] ?? 1)]!]);
    }
  };
  spacing('padding', params.get('padding') ?? params.get('p'));
  spacing('margin', params.get('margin') ?? params.get('m'));
  for (const item of listItems(params.get('border') ?? params.get('borders') ?? params.get('b') ?? '')) {
    const [ds, ...colors] = item.split(/\s+/);
    const m = /^([lrtbxya])([0-5])?$/.exec(ds ?? '');
    if (!m) continue;
    const color = colorOf(colors[0]) ?? 'currentColor';
    const size = Number(m[2] ?? 1);
    for (const side of SIDES[m[1]!]!) out.push([`border-${side}`, size ? `${size}px solid ${color}` : '0']);
  }
  const fg = colorOf(params.get('fg') ?? params.get('foreground'));
  if (fg) out.push(['color', fg]);
  const bg = colorOf(params.get('bg') ?? params.get('background'));
  if (bg) out.push(['background-color', bg]);
  return out;
}

const CALLOUT_TYPES = ['info', 'warning', 'error', 'success'] as const;
export type CalloutType = (typeof CALLOUT_TYPES)[number];
const CALLOUT_ALIASES: Record<string, CalloutType> = {
  info: 'info',
  warn: 'warning',
  warning: 'warning',
  err: 'error',
  error: 'error',
  alert: 'error',
  ok: 'success',
  success: 'success',
};
/** Icon, accent and fill of each callout type (the same in documents and e-mail). */
export const CALLOUT_STYLE: Record<CalloutType, { icon: string; accent: string; fill: string }> = {
  info: { icon: 'ℹ', accent: '#0969da', fill: '#ddf4ff' },
  warning: { icon: '⚠', accent: '#9a6700', fill: '#fff8c5' },
  error: { icon: '✖', accent: '#cf222e', fill: '#ffebe9' },
  success: { icon: '✔', accent: '#1a7f37', fill: '#dafbe1' },
};
export function calloutType(v: string | undefined): CalloutType {
  return CALLOUT_ALIASES[(v ?? '').trim().toLowerCase()] ?? 'info';
}

export const FONT_SIZES: Record<string, string> = { xs: '0.75em', s: '0.875em', m: '1em', l: '1.25em', xl: '1.5em' };
export const FONT_STYLES: Record<string, Decl> = {
  r: ['font-style', 'normal'],
  regular: ['font-style', 'normal'],
  b: ['font-weight', '700'],
  bold: ['font-weight', '700'],
  i: ['font-style', 'italic'],
  italic: ['font-style', 'italic'],
};

/** Base styles of the block parts, for e-mail (documents get the same from the `blocksCss` classes). */
export function mailBase(cls: string, callout?: CalloutType): Decl[] {
  // No border-radius, flex or inline-block sizing: Outlook on Windows (Word) renders none of them,
  // so boxes are one-cell tables (renderBlocks' `box`) and the author block is a two-cell table.
  const c = callout ? CALLOUT_STYLE[callout] : undefined;
  switch (cls) {
    case 'sb-callout':
      return [
        ['padding', '12px 16px'],
        ['border-left', `4px solid ${c!.accent}`],
        ['background-color', c!.fill],
        ['color', '#1f2328'],
      ];
    case 'sb-callout-head':
      return [
        ['font-weight', '700'],
        ['margin-bottom', '4px'],
        ['color', c!.accent],
      ];
    case 'sb-author-pic':
      return [
        ['width', '40px'],
        ['height', '40px'],
        ['text-align', 'center'],
        ['background-color', '#d1d9e0'],
        ['color', '#1f2328'],
        ['font-weight', '700'],
      ];
    case 'sb-author-img':
      return [
        ['width', '40px'],
        ['height', '40px'],
        ['display', 'block'],
      ];
    case 'sb-author-name':
      return [['margin', '0']];
    case 'sb-author-bio':
      return [
        ['color', '#59636e'],
        ['margin', '0'],
      ];
    case 'sb-box':
      return [
        ['padding', '12px 16px'],
        ['border', '1px dashed #8c959f'],
      ];
    default:
      return [];
  }
}

/** Margins go on an e-mail box's table, everything else on its one cell. */
export const isMargin = ([p]: Decl) => p.startsWith('margin');

/** CSS of the block classes in documents (uses the theme's variables). */
export function blocksCss(): string {
  const callouts = CALLOUT_TYPES.map((t) => {
    const s = CALLOUT_STYLE[t];
    return `.sb-callout-${t}{border-left:4px solid ${s.accent};background:${s.fill};color:#1f2328}.sb-callout-${t} .sb-callout-head{color:${s.accent}}`;
  }).join('');
  return (
    '.sb-callout{margin:1em 0;padding:.75em 1em;border-radius:6px;break-inside:avoid}.sb-callout-head{font-weight:700;margin-bottom:.25em}' +
    '.sb-callout>.sb-callout-body>:first-child{margin-top:0}.sb-callout>.sb-callout-body>:last-child{margin-bottom:0}' +
    '.sb-cborder-dashed{border-style:dashed;border-width:1px 1px 1px 4px}.sb-cborder-solid{border-style:solid;border-width:1px 1px 1px 4px}.sb-cborder-none{border:0}' +
    callouts +
    '.sb-author{display:flex;align-items:center;gap:.75em;margin:1em 0}.sb-author-pic{display:inline-block;flex:none;width:2.5em;height:2.5em;line-height:2.5em;border-radius:50%;text-align:center;background:var(--border);color:var(--fg);font-weight:700}' +
    '.sb-author-img{width:2.5em;height:2.5em;border-radius:50%}.sb-author-bio{color:var(--muted);margin:0}.sb-author-name{margin:0}' +
    '.sb-box{margin:1em 0;padding:.75em 1em;border:1px dashed var(--border);border-radius:6px}' +
    '.sb-vis{text-align:center;color:var(--muted)}.sb-vis-left{text-align:left}.sb-vis-right{text-align:right}' +
    '.sb-vis-drawn svg{width:100%;height:auto;display:block}'
  );
}
