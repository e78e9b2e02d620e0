/**
 * The named colours a plot's colour instructions may use, each with its light and dark
 * version (the drawings switch on `prefers-color-scheme`).
 *
 * novem's documentation names colours with a 100-900 gradient (`blue-300`) and a few of
 * intent (`good`, `neutral`, `bad`), but not their values: the palette here is Tailwind
 * CSS's (v3), whose families carry the same 100-900 steps. A family without a step is its
 * 500. In the dark theme a step is mirrored (`blue-100` draws as `blue-900`), as novem
 * describes for its extended colours; the colours of intent have their own dark values.
 * `#rgb` and `#rrggbb` are themselves in both themes. Anything else is not a colour.
 */

const STEPS = [100, 200, 300, 400, 500, 600, 700, 800, 900] as const;

// prettier-ignore
const FAMILIES: Record<string, readonly string[]> = {
  slate:   ['f1f5f9', 'e2e8f0', 'cbd5e1', '94a3b8', '64748b', '475569', '334155', '1e293b', '0f172a'],
  gray:    ['f3f4f6', 'e5e7eb', 'd1d5db', '9ca3af', '6b7280', '4b5563', '374151', '1f2937', '111827'],
  zinc:    ['f4f4f5', 'e4e4e7', 'd4d4d8', 'a1a1aa', '71717a', '52525b', '3f3f46', '27272a', '18181b'],
  stone:   ['f5f5f4', 'e7e5e4', 'd6d3d1', 'a8a29e', '78716c', '57534e', '44403c', '292524', '1c1917'],
  red:     ['fee2e2', 'fecaca', 'fca5a5', 'f87171', 'ef4444', 'dc2626', 'b91c1c', '991b1b', '7f1d1d'],
  orange:  ['ffedd5', 'fed7aa', 'fdba74', 'fb923c', 'f97316', 'ea580c', 'c2410c', '9a3412', '7c2d12'],
  amber:   ['fef3c7', 'fde68a', 'fcd34d', 'fbbf24', 'f59e0b', 'd97706', 'b45309', '92400e', '78350f'],
  yellow:  ['fef9c3', 'fef08a', 'fde047', 'facc15', 'eab308', 'ca8a04', 'a16207', '854d0e', '713f12'],
  lime:    ['ecfccb', 'd9f99d', 'bef264', 'a3e635', '84cc16', '65a30d', '4d7c0f', '3f6212', '365314'],
  green:   ['dcfce7', 'bbf7d0', '86efac', '4ade80', '22c55e', '16a34a', '15803d', '166534', '14532d'],
  emerald: ['d1fae5', 'a7f3d0', '6ee7b7', '34d399', '10b981', '059669', '047857', '065f46', '064e3b'],
  teal:    ['ccfbf1', '99f6e4', '5eead4', '2dd4bf', '14b8a6', '0d9488', '0f766e', '115e59', '134e4a'],
  cyan:    ['cffafe', 'a5f3fc', '67e8f9', '22d3ee', '06b6d4', '0891b2', '0e7490', '155e75', '164e63'],
  sky:     ['e0f2fe', 'bae6fd', '7dd3fc', '38bdf8', '0ea5e9', '0284c7', '0369a1', '075985', '0c4a6e'],
  blue:    ['dbeafe', 'bfdbfe', '93c5fd', '60a5fa', '3b82f6', '2563eb', '1d4ed8', '1e40af', '1e3a8a'],
  indigo:  ['e0e7ff', 'c7d2fe', 'a5b4fc', '818cf8', '6366f1', '4f46e5', '4338ca', '3730a3', '312e81'],
  violet:  ['ede9fe', 'ddd6fe', 'c4b5fd', 'a78bfa', '8b5cf6', '7c3aed', '6d28d9', '5b21b6', '4c1d95'],
  purple:  ['f3e8ff', 'e9d5ff', 'd8b4fe', 'c084fc', 'a855f7', '9333ea', '7e22ce', '6b21a8', '581c87'],
  fuchsia: ['fae8ff', 'f5d0fe', 'f0abfc', 'e879f9', 'd946ef', 'c026d3', 'a21caf', '86198f', '701a75'],
  pink:    ['fce7f3', 'fbcfe8', 'f9a8d4', 'f472b6', 'ec4899', 'db2777', 'be185d', '9d174d', '831843'],
  rose:    ['ffe4e6', 'fecdd3', 'fda4af', 'fb7185', 'f43f5e', 'e11d48', 'be123c', '9f1239', '881337'],
};

/** Names of intent: a family for their steps (`good-300`), and their own light and dark colour unstepped. */
const INTENT: Record<string, { family: string; light: number; dark: number }> = {
  good: { family: 'green', light: 600, dark: 400 },
  bad: { family: 'red', light: 600, dark: 400 },
  neutral: { family: 'gray', light: 400, dark: 500 },
  ok: { family: 'green', light: 600, dark: 400 },
  success: { family: 'green', light: 600, dark: 400 },
  warn: { family: 'amber', light: 500, dark: 400 },
  warning: { family: 'amber', light: 500, dark: 400 },
  alert: { family: 'red', light: 600, dark: 400 },
  danger: { family: 'red', light: 600, dark: 400 },
  info: { family: 'blue', light: 600, dark: 400 },
  notice: { family: 'blue', light: 600, dark: 400 },
};

const ALIASES: Record<string, string> = { grey: 'gray' };

/** Colours that are the same in both themes. */
const FIXED: Record<string, string> = { black: '#000000', white: '#ffffff', transparent: 'none', none: 'none' };

/** A colour as drawn: `#rrggbb` (or `none`) in the light and the dark theme. */
export interface Shade {
  light: string;
  dark: string;
}

const step = (family: string, s: number) => `#${FAMILIES[family]![STEPS.indexOf(s as (typeof STEPS)[number])]}`;

/** `#rgb` / `#rrggbb` as `#rrggbb`, lower case; undefined for anything else. */
function hexColor(text: string): string | undefined {
  const t = text.toLowerCase();
  if (/^#[0-9a-f]{6}$/.test(t)) return t;
  if (/^#[0-9a-f]{3}$/.test(t)) return `#${t[1]}${t[1]}${t[2]}${t[2]}${t[3]}${t[3]}`;
  return undefined;
}

/** A colour by name (`blue`, `gray-300`, `good`, `bad-700`, `#f80`): its light and dark version, or undefined. */
export function namedColor(text: string): Shade | undefined {
  const hex = hexColor(text);
  if (hex) return { light: hex, dark: hex };
  const t = text.toLowerCase();
  if (FIXED[t]) return { light: FIXED[t], dark: FIXED[t] };
  const m = /^([a-z]+)(?:-([1-9]00))?$/.exec(t);
  if (!m) return undefined;
  const name = ALIASES[m[1]!] ?? m[1]!;
  const s = m[2] ? Number(m[2]) : undefined;
  const intent = INTENT[name];
  if (intent) {
    if (s === undefined) return { light: step(intent.family, intent.light), dark: step(intent.family, intent.dark) };
    return { light: step(intent.family, s), dark: step(intent.family, 1000 - s) };
  }
  if (!FAMILIES[name]) return undefined;
  const light = s ?? 500;
  return { light: step(name, light), dark: step(name, 1000 - light) };
}

/** The colours series take in order when the plot names none (ten families, a step darker in the light theme). */
const SERIES: readonly Shade[] = [
  ['blue', 600],
  ['orange', 500],
  ['emerald', 600],
  ['red', 600],
  ['violet', 600],
  ['amber', 700],
  ['pink', 600],
  ['slate', 500],
  ['lime', 600],
  ['cyan', 600],
].map(([f, s]) => ({ light: step(f as string, s as number), dark: step(f as string, 400) }));

export const seriesColor = (i: number): Shade => SERIES[i % SERIES.length]!;

/** The drawing's own colours: background, text, muted text, gridlines, axes. */
export const THEME = {
  bg: { light: '#ffffff', dark: '#111827' },
  text: { light: '#1f2937', dark: '#e5e7eb' },
  muted: { light: '#6b7280', dark: '#9ca3af' },
  grid: { light: '#e5e7eb', dark: '#374151' },
  axis: { light: '#9ca3af', dark: '#6b7280' },
} satisfies Record<string, Shade>;

/** The palette's family names (documentation and tests). */
export const FAMILY_NAMES = Object.keys(FAMILIES);
