/**
 * The JSON builder: a parsed layout and mapping become json/data.json and
 * json/meta_data.json (docs/areas/grids.md). Pure; unit-tested.
 */
import type { LayoutBox, ParsedLayout, Position } from './layout';
import type { Binding } from './mapping';

interface Inst {
  lid: string;
  position: Position;
  include_header: boolean;
  include_caption: boolean;
}

export interface GridNode {
  type: 'wrapper' | 'wrapper container';
  width: number;
  height: number;
  children: GridNode[];
  inst?: Inst;
}

export interface GridData {
  structure: GridNode;
}

interface MetaEntry {
  lid: string;
  ref: string;
  params: Record<string, string | boolean>;
}

export type MetaData = Record<string, MetaEntry>;

/** The structure of a grid without a layout (never written, or cleared). */
const EMPTY_STRUCTURE: GridData = { structure: { type: 'wrapper', width: 0, height: 0, children: [] } };

/** 53-bit string hash (cyrb53): fast, well spread, deterministic. */
function hash53(text: string): number {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

/**
 * The lid of a label in one grid: 14 hex digits derived from the grid's id and the label,
 * so the same label keeps its lid across every re-parse (and a copy gets its own lids).
 */
export function lidFor(gridId: string | number, label: string): string {
  return hash53(`${gridId}:${label}`).toString(16).padStart(14, '0');
}

function node(box: LayoutBox, mapping: Map<string, Binding>, gridId: string | number): GridNode {
  if (!box.cell) {
    return {
      type: 'wrapper',
      width: box.width,
      height: box.height,
      children: box.children.map((c) => node(c, mapping, gridId)),
    };
  }
  const { label, position } = box.cell;
  const bound = label === null ? undefined : mapping.get(label);
  return {
    type: 'wrapper container',
    width: box.width,
    height: box.height,
    children: [],
    inst: {
      lid: bound ? lidFor(gridId, label!) : '',
      position,
      include_header: bound?.include_header ?? false,
      include_caption: bound?.include_caption ?? false,
    },
  };
}

/** data.json: the root is always a `wrapper`; a drawing of one box wraps that one cell. */
export function buildData(
  layout: ParsedLayout | null,
  mapping: Map<string, Binding>,
  gridId: string | number,
): GridData {
  if (!layout) return EMPTY_STRUCTURE;
  const top = node(layout.root, mapping, gridId);
  if (top.type === 'wrapper') return { structure: top };
  return { structure: { type: 'wrapper', width: top.width, height: top.height, children: [top] } };
}

/** meta_data.json: every label bound in the mapping, with its lid, reference and parameters. */
export function buildMeta(mapping: Map<string, Binding>, gridId: string | number): MetaData {
  return Object.fromEntries(
    [...mapping].map(([label, b]) => [label, { lid: lidFor(gridId, label), ref: b.ref, params: b.params }]),
  );
}
