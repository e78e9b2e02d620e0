/**
 * What every part of a plot's SVG is drawn with: the scope's names (every class and id
 * carries the plot's prefix), the colours (each drawn in its light version as an attribute,
 * which any SVG reader understands, with its dark version as a class the theme's
 * `prefers-color-scheme: dark` rule switches to), and text.
 */
import { THEME, type Shade } from './palette';
import { esc, num } from './xml';

/** A box on the drawing. */
export interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}

/** Font size of ordinary labels (ticks, legend, cells), in pixels. */
export const FONT = 12;
export const SMALL = 11;

/** A colour as attributes: the light colour (`attr`) and the class switching to the dark one (none when both are the same). */
export interface InkUse {
  attr: string;
  cls?: string;
}

/** The colours one drawing uses, and the dark-theme rule of each (one class per distinct colour). */
export class Ink {
  private readonly ids = new Map<string, string>();
  private readonly rules: string[] = [];
  constructor(private readonly scope: string) {}

  private use(prop: 'fill' | 'stroke', shade: Shade): InkUse {
    const attr = ` ${prop}="${shade.light}"`;
    if (shade.dark === shade.light) return { attr };
    const key = `${prop}${shade.light}${shade.dark}`;
    let cls = this.ids.get(key);
    if (!cls) {
      cls = `${this.scope}-${prop === 'fill' ? 'f' : 's'}${this.ids.size}`;
      this.ids.set(key, cls);
      this.rules.push(`.${cls}{${prop}:${shade.dark}}`);
    }
    return { attr, cls };
  }

  fill(shade: Shade): InkUse {
    return this.use('fill', shade);
  }

  stroke(shade: Shade): InkUse {
    return this.use('stroke', shade);
  }

  /** The dark-theme rules of the colours used. */
  darkRules(): string {
    return this.rules.join('');
  }
}

/** An element's `class` (the `classes` given, each with the scope's prefix, and the colours' dark classes) and colour attributes. */
export function attrs(scope: string, classes: string[], ...inks: InkUse[]): string {
  let names = classes.map((c) => `${scope}-${c}`).join(' ');
  let colour = '';
  for (const ink of inks) {
    colour += ink.attr;
    if (ink.cls) names += ` ${ink.cls}`;
  }
  return ` class="${names}"${colour}`;
}

/**
 * The theme's own colours as light attributes; the element also takes the class of the same
 * name (`fg`, `muted`, `grid`, `axis`, `bg`), which the document's dark rule restyles (svg.ts).
 */
export const theme = {
  fg: { attr: ` fill="${THEME.text.light}"` },
  muted: { attr: ` fill="${THEME.muted.light}"` },
  grid: { attr: ` stroke="${THEME.grid.light}"` },
  axis: { attr: ` stroke="${THEME.axis.light}"` },
  bg: { attr: ` fill="${THEME.bg.light}"` },
} satisfies Record<string, InkUse>;

/** A `<text>` of user text (escaped), with the scope's classes. */
export function text(
  scope: string,
  x: number,
  y: number,
  content: string,
  classes: string[],
  extra = '',
  ...inks: InkUse[]
): string {
  return `<text x="${num(x)}" y="${num(y)}"${attrs(scope, classes, ...inks)}${extra}>${esc(content)}</text>`;
}

/** Lines of at most `width` pixels (by the estimate), at most `max` of them (the last cut with an ellipsis). */
export function wrap(
  s: string,
  width: number,
  size: number,
  max: number,
  measure: (t: string, px: number) => number,
): string[] {
  const words = s.replace(/\s+/g, ' ').trim().slice(0, 4000).split(' ');
  const lines: string[] = [];
  let line = '';
  for (const w of words) {
    const next = line ? `${line} ${w}` : w;
    if (line && measure(next, size) > width) {
      lines.push(line);
      line = w;
      if (lines.length === max) break;
    } else line = next;
  }
  if (lines.length < max && line) lines.push(line);
  if (lines.length === max && words.join(' ').length > lines.join(' ').length) {
    const last = lines[max - 1]!;
    lines[max - 1] = last.length > 1 ? `${last.replace(/.$/u, '')}…` : last;
  }
  return lines;
}
