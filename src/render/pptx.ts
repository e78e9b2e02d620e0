/**
 * A document's PPTX deck: one screenshot of each sheet of the print layout per slide
 * (continuous types: the whole page on one slide, as tall as PowerPoint allows), each
 * sheet's text as the slide's notes. Runs in the browser isolate (isolates/browser.ts).
 */
import type { Page } from '@cloudflare/puppeteer';
import PptxGenJS from 'pptxgenjs';
import { toBase64 } from '../core/crypto';
import { geometry, type Geometry } from '../markup/themes';
import { printViewport, SHEET_VIEW_HEIGHT, withSheets, type Rendered, type RenderRun } from './print-layout';

/** Tallest slide PowerPoint allows (56 in) in CSS px: a taller continuous page is scaled down onto it. */
const MAX_SLIDE_PX = 56 * 96;
/** Above this many slides a deck is screenshotted at 1x instead of 1.5x (memory). */
const HIDPI_MAX_SLIDES = 40;

/** Where an image of w x h px goes on a slide of the geometry, in inches (fit and centred). */
export function fitImage(
  g: { widthIn: number; heightIn: number },
  w: number,
  h: number,
): { x: number; y: number; w: number; h: number } {
  const slide = g.widthIn / g.heightIn;
  const img = w / h;
  const fw = img >= slide ? g.widthIn : g.heightIn * img;
  const fh = img >= slide ? g.widthIn / img : g.heightIn;
  return { x: (g.widthIn - fw) / 2, y: (g.heightIn - fh) / 2, w: fw, h: fh };
}

interface Shot {
  /** PNG as base64 (the bytes are not kept: a deck of many slides holds only this). */
  png: string;
  /** Size of the captured box in CSS px. */
  width: number;
  height: number;
  text: string;
}

/** One screenshot per sheet (continuous types: the whole page, scaled down to PowerPoint's tallest slide). */
async function screenshots(page: Page, flow: boolean, texts: string[]): Promise<Shot[]> {
  const targets = await page.$$(flow ? 'main.document' : 'main.document > section.page');
  if (targets.length !== texts.length)
    throw new Error(`layout changed while capturing: ${targets.length} sheets, ${texts.length} texts`);
  if (!flow && targets.length > HIDPI_MAX_SLIDES) await page.setViewport({ ...page.viewport()!, deviceScaleFactor: 1 });
  const shots: Shot[] = [];
  for (const [i, el] of targets.entries()) {
    const box = await el.boundingBox();
    if (!box) throw new Error(`sheet ${i + 1} has no box to capture`);
    const scale = Math.min(1, MAX_SLIDE_PX / box.height);
    const png = await page.screenshot({
      type: 'png',
      captureBeyondViewport: true,
      clip: { x: box.x, y: box.y, width: box.width, height: box.height, scale },
    });
    shots.push({ png: toBase64(new Uint8Array(png)), width: box.width, height: box.height, text: texts[i]! });
  }
  return shots;
}

export async function renderPptx(run: RenderRun): Promise<Rendered> {
  const { page } = run;
  const g = geometry(page.type);
  const flow = g.heightPx === 0;
  const { value: shots, session } = await withSheets(run, printViewport(g, flow ? 1 : 1.5), (page, texts) =>
    screenshots(page, flow, texts),
  );
  const slideGeometry: Geometry = flow
    ? { ...g, heightIn: Math.min(MAX_SLIDE_PX, Math.max(96, shots[0]?.height ?? SHEET_VIEW_HEIGHT)) / 96 }
    : g;
  const pptx = new PptxGenJS();
  pptx.defineLayout({ name: 'DOC', width: slideGeometry.widthIn, height: slideGeometry.heightIn });
  pptx.layout = 'DOC';
  pptx.title = page.title;
  for (const shot of shots) {
    const slide = pptx.addSlide();
    slide.background = { color: page.bg.replace('#', '') };
    slide.addImage({ data: `image/png;base64,${shot.png}`, ...fitImage(slideGeometry, shot.width, shot.height) });
    if (shot.text.trim()) slide.addNotes(shot.text.trim());
  }
  const bytes = (await pptx.write({ outputType: 'uint8array' })) as Uint8Array<ArrayBuffer>;
  return { bytes, pages: shots.length, session };
}
