/**
 * The rendered dashboard page: data.json drawn as HTML/CSS, each cell an absolutely
 * placed box whose left/top/width/height are its share of the whole drawing (percentages
 * of the viewport). No script; one <style> element whose hash the route puts in the
 * Content-Security-Policy. Every text is escaped. Pure; unit-tested.
 */
import { escapeHtml } from '../markup/escape';
import { strictPage } from '../markup/strict-page';
import type { GridData, GridNode, MetaData } from './build';

export interface PlacedCell {
  /** Index path from the root (`0.2.1`). */
  path: string;
  /** Fractions of the whole drawing, 0..1. */
  x: number;
  y: number;
  w: number;
  h: number;
  node: GridNode;
}

/** Whether a node's children are stacked (rows) or side by side (columns): read off their sizes. */
export function splitOf(n: GridNode): 'rows' | 'columns' {
  return n.children.length > 1 && n.children.every((c) => c.width === n.width) ? 'rows' : 'columns';
}

/** Every leaf of the structure with its box as fractions of the root. */
export function placeCells(data: GridData): PlacedCell[] {
  const root = data.structure;
  const out: PlacedCell[] = [];
  if (!root.width || !root.height) return out;
  const walk = (n: GridNode, x: number, y: number, path: string) => {
    if (!n.children.length) {
      out.push({
        path,
        x: x / root.width,
        y: y / root.height,
        w: n.width / root.width,
        h: n.height / root.height,
        node: n,
      });
      return;
    }
    const rows = splitOf(n) === 'rows';
    let at = rows ? y : x;
    n.children.forEach((c, i) => {
      walk(c, rows ? x : at, rows ? at : y, path ? `${path}.${i}` : String(i));
      at += rows ? c.height : c.width;
    });
  };
  walk(root, 0, 0, '');
  return out;
}

const pct = (f: number) => `${+(f * 100).toFixed(6)}%`;

export interface GridPage {
  html: string;
  /** The text of the page's one <style> element (hashed into the CSP by the route). */
  style: string;
}

const BASE_STYLE =
  'html,body{margin:0;height:100%;overflow:hidden;font:14px/1.3 system-ui,sans-serif;background:#fff;color:#1d2433}' +
  '.grid{position:relative;width:100vw;height:100vh}' +
  '.cell{position:absolute;box-sizing:border-box;border:1px solid #8a94a6;display:flex;flex-direction:column;align-items:center;overflow:hidden;padding:4px;background:#f4f6fa}' +
  '.top{justify-content:flex-start}.middle{justify-content:center}.bottom{justify-content:flex-end}' +
  '.empty{background:#fff;color:#9aa3b2}.label{font-weight:600}.ref,.pos{font-size:12px;word-break:break-all;text-align:center}' +
  '.none{display:flex;align-items:center;justify-content:center;height:100vh;color:#9aa3b2}';

/** The page of one grid: `title` is the grid's name, `meta` gives each lid its label and plot. */
export function renderGridPage(title: string, data: GridData, meta: MetaData): GridPage {
  const byLid = new Map(Object.entries(meta).map(([label, m]) => [m.lid, { label, ref: m.ref }]));
  const cells = placeCells(data);
  const rules: string[] = [];
  const body = cells.map((c, i) => {
    rules.push(`#c${i}{left:${pct(c.x)};top:${pct(c.y)};width:${pct(c.w)};height:${pct(c.h)}}`);
    const inst = c.node.inst;
    const bound = inst?.lid ? byLid.get(inst.lid) : undefined;
    const position = inst?.position === 'top' || inst?.position === 'bottom' ? inst.position : 'middle';
    const attrs = `id="c${i}" data-path="${escapeHtml(c.path)}" data-lid="${escapeHtml(inst?.lid ?? '')}"`;
    // an empty cell has no label or plot to show, but still its position
    if (!bound)
      return `<div class="cell empty ${position}" ${attrs}><span class="label">empty</span><span class="pos">${position}</span></div>`;
    return (
      `<div class="cell ${position}" ${attrs}>` +
      `<span class="label">${escapeHtml(bound.label)}</span>` +
      `<span class="pos">${escapeHtml(position)}</span>` +
      `<span class="ref">${escapeHtml(bound.ref)}</span></div>`
    );
  });
  const style = BASE_STYLE + rules.join('');
  const content = cells.length
    ? `<main class="grid">${body.join('')}</main>`
    : '<main class="none">this grid has no layout yet</main>';
  return { html: strictPage({ title, style, body: content }), style };
}
