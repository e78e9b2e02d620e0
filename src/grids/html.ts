/**
 * The rendered dashboard page: the grid's title over data.json drawn as HTML/CSS, each cell
 * an absolutely placed box whose left/top/width/height are its share of the whole drawing
 * (percentages of the area under the title), holding the SVG of the plot it is bound to
 * (drawn by the route, box-plots.ts), or a placeholder when there is none to show. No
 * script; one <style> element (the plots' own styles hoisted into it) whose hash the route
 * puts in the Content-Security-Policy. Every text is escaped. Pure; unit-tested.
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
function splitOf(n: GridNode): 'rows' | 'columns' {
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

/** The canvas a dashboard's plots are drawn on (each at its cell's share, then scaled to the box by its viewBox). */
const CANVAS = { width: 1600, height: 900 };

const BASE_STYLE =
  'html,body{margin:0;height:100%;overflow:hidden;font:14px/1.3 system-ui,sans-serif;background:#fff;color:#1d2433}' +
  'body{display:flex;flex-direction:column}h1{margin:0;padding:6px 10px;font-size:16px;font-weight:600;flex:none}' +
  '.grid{position:relative;flex:1;min-height:0}' +
  '.cell{position:absolute;box-sizing:border-box;border:1px solid #8a94a6;display:flex;flex-direction:column;align-items:center;overflow:hidden;padding:4px;background:#fff}' +
  '.top{justify-content:flex-start}.middle{justify-content:center}.bottom{justify-content:flex-end}' +
  '.cell svg{width:100%;height:100%;min-height:0;display:block}' +
  '.missing{color:#9aa3b2;text-align:center;font-size:13px}.label{font-weight:600}' +
  '.none{display:flex;align-items:center;justify-content:center;flex:1;color:#9aa3b2}' +
  '@media (prefers-color-scheme: dark){html,body,.cell{background:#111418;color:#e6e9ef}.cell{border-color:#3a4150}}';

/** What a bound cell shows: its plot's drawing (SVG without its <style>, and that style), or why there is none. */
export type CellDrawing = { svg: string; style: string } | { missing: string };

/** The cell's size on the canvas, the size its plot is drawn at. */
export const canvasSize = (c: PlacedCell) => ({
  width: Math.max(100, Math.round(c.w * CANVAS.width)),
  height: Math.max(100, Math.round(c.h * CANVAS.height)),
});

/**
 * The page of one grid: `title` is the grid's name, `meta` gives each lid its label and plot,
 * `drawing(cell index, label, ref)` what a bound cell shows.
 */
export function renderGridPage(
  title: string,
  data: GridData,
  meta: MetaData,
  drawing: (index: number, label: string, ref: string) => CellDrawing = () => ({ missing: 'no plot to show' }),
): GridPage {
  const byLid = new Map(Object.entries(meta).map(([label, m]) => [m.lid, { label, ref: m.ref }]));
  const cells = placeCells(data);
  const rules: string[] = [];
  const plotStyles: string[] = [];
  const body = cells.map((c, i) => {
    rules.push(`#c${i}{left:${pct(c.x)};top:${pct(c.y)};width:${pct(c.w)};height:${pct(c.h)}}`);
    const inst = c.node.inst;
    const bound = inst?.lid ? byLid.get(inst.lid) : undefined;
    const position = inst?.position === 'top' || inst?.position === 'bottom' ? inst.position : 'middle';
    const attrs = `id="c${i}" data-path="${escapeHtml(c.path)}" data-lid="${escapeHtml(inst?.lid ?? '')}"`;
    // A cell bound to nothing shows nothing.
    if (!bound) return `<div class="cell empty ${position}" ${attrs}></div>`;
    const shown = drawing(i, bound.label, bound.ref);
    if ('svg' in shown) {
      plotStyles.push(shown.style);
      return `<div class="cell ${position}" ${attrs} title="${escapeHtml(bound.label)}">${shown.svg}</div>`;
    }
    return (
      `<div class="cell ${position}" ${attrs}>` +
      `<span class="label">${escapeHtml(bound.label)}</span>` +
      `<span class="missing">${escapeHtml(shown.missing)}</span></div>`
    );
  });
  const style = BASE_STYLE + rules.join('') + plotStyles.join('');
  const content = cells.length
    ? `<main class="grid">${body.join('')}</main>`
    : '<main class="none">this grid has no layout yet</main>';
  return { html: strictPage({ title, style, body: `<h1>${escapeHtml(title)}</h1>${content}` }), style };
}
