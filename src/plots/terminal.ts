/**
 * Text for a terminal: lines made of segments, each with an optional SGR style, rendered
 * with ANSI escapes (`\x1b[38;5;Nm` 256-colour foreground, `\x1b[48;5;Nm` background,
 * `\x1b[0m` reset) or without any. Widths count code points and never escapes; every line
 * is cut to the drawing's width when rendered, whatever was put on it. User text goes in
 * through `clean`: control characters (an escape sequence in a title would move the
 * reader's cursor or retitle the window) and bidirectional overrides are removed.
 */
import type { Shade } from './palette';

export interface Seg {
  t: string;
  /** SGR parameters (`38;5;33`, `1`, `1;38;5;33`); none: the terminal's own style. */
  s?: string;
}

export type TextLine = Seg[];

// C0 and C1 controls, DEL, and the bidirectional embeddings, overrides and isolates.
// oxlint-disable-next-line no-control-regex -- the controls are what it strips
const CONTROL = /[\0-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g;

/** User text made safe for a terminal: no control characters, whitespace runs as one space. */
export function clean(s: string): string {
  return s.slice(0, 4000).replace(/\s+/g, ' ').replace(CONTROL, '').trim();
}

/** Code points of `s`. */
export const cps = (s: string): number => {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0xdc00 || c > 0xdfff) n++;
  }
  return n;
};

/** `s` cut to `max` code points (an ellipsis as the last when cut). */
export function fit(s: string, max: number): string {
  if (max <= 0) return '';
  if (cps(s) <= max) return s;
  const a = Array.from(s.slice(0, max * 2 + 2));
  return a.slice(0, max - 1).join('') + '…';
}

/** `s` padded with spaces to `w` code points, aligned left, right or centred (cut first when longer). */
export function pad(s: string, w: number, align: 'left' | 'right' | 'center' = 'left'): string {
  const t = fit(s, w);
  const room = w - cps(t);
  if (room <= 0) return t;
  if (align === 'right') return ' '.repeat(room) + t;
  if (align === 'center') return ' '.repeat(Math.floor(room / 2)) + t + ' '.repeat(Math.ceil(room / 2));
  return t + ' '.repeat(room);
}

const LEVELS = [0, 95, 135, 175, 215, 255];

/** The xterm 256-colour index nearest to `#rrggbb` (the 6×6×6 cube or the grey ramp). */
function xterm(hex: string): number {
  const v = parseInt(hex.slice(1), 16);
  if (!/^#[0-9a-f]{6}$/i.test(hex) || Number.isNaN(v)) return 7;
  const rgb = [(v >> 16) & 255, (v >> 8) & 255, v & 255];
  const idx = rgb.map((c) => {
    let best = 0;
    for (let i = 1; i < 6; i++) if (Math.abs(LEVELS[i]! - c) < Math.abs(LEVELS[best]! - c)) best = i;
    return best;
  });
  const cube = 16 + 36 * idx[0]! + 6 * idx[1]! + idx[2]!;
  const cubeRgb = idx.map((i) => LEVELS[i]!);
  const grey = Math.min(23, Math.max(0, Math.round(((rgb[0]! + rgb[1]! + rgb[2]!) / 3 - 8) / 10)));
  const greyV = 8 + grey * 10;
  const dist = (a: number[]) => a.reduce((s, c, i) => s + (c - rgb[i]!) ** 2, 0);
  return dist([greyV, greyV, greyV]) < dist(cubeRgb) ? 232 + grey : cube;
}

/**
 * The foreground style of a colour in a terminal. Terminals are dark more often than not,
 * and the dark versions of the palette read on a light background too: the dark one is used.
 */
export const fg = (shade: Shade | undefined): string | undefined =>
  shade && shade.dark !== 'none' ? `38;5;${xterm(shade.dark)}` : undefined;
export const bg = (shade: Shade | undefined): string | undefined =>
  shade && shade.dark !== 'none' ? `48;5;${xterm(shade.dark)}` : undefined;

/** Dim grey for axes, ticks and notes. */
export const MUTED = '38;5;245';
export const BOLD = '1';

/** The lines as text, each cut to `width` code points; escapes only when `ansi`. */
export function render(lines: TextLine[], width: number, ansi: boolean): string {
  const out: string[] = [];
  for (const line of lines) {
    // The visible text cut to the width, then without its trailing spaces (with or without escapes alike).
    const segs: Seg[] = [];
    let left = width;
    for (const seg of line) {
      if (left <= 0) break;
      const t = cps(seg.t) > left ? Array.from(seg.t).slice(0, left).join('') : seg.t;
      left -= cps(t);
      segs.push({ t, s: seg.s });
    }
    while (segs.length && /^ *$/.test(segs.at(-1)!.t)) segs.pop();
    if (segs.length) segs[segs.length - 1] = { ...segs.at(-1)!, t: segs.at(-1)!.t.replace(/ +$/, '') };
    out.push(segs.map(({ t, s }) => (ansi && s && t ? `\x1b[${s}m${t}\x1b[0m` : t)).join(''));
  }
  return out.join('\n') + '\n';
}
