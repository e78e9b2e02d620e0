/**
 * A document's PDF, printed by the browser from the print layout: paged types on their
 * own page size (one PDF page per sheet), continuous types as one page as tall as the
 * document. Runs in the browser isolate (isolates/browser.ts).
 */
import { geometry } from '../markup/themes';
import { printHeight, printViewport, withSheets, type Rendered, type RenderRun } from './print-layout';

/** Counts the pages of a PDF (its /Type /Page objects). */
export function pdfPageCount(pdf: Uint8Array): number {
  const text = new TextDecoder('latin1').decode(pdf);
  return (text.match(/\/Type\s*\/Page(?![a-zA-Z])/g) ?? []).length;
}

export async function renderPdf(run: RenderRun): Promise<Rendered> {
  const g = geometry(run.page.type);
  // Paged types: the page's own @page size, which is the type's (pageSizeCss comes after custom CSS).
  const { value: pdf, session } = await withSheets(run, printViewport(g), async (page) =>
    g.heightPx === 0
      ? await page.pdf({
          width: `${g.widthPx}px`,
          height: `${(await printHeight(page)) + 2}px`,
          printBackground: true,
          pageRanges: '1',
        })
      : await page.pdf({ printBackground: true, preferCSSPageSize: true }),
  );
  const bytes = new Uint8Array(pdf);
  return { bytes, pages: pdfPageCount(bytes), session };
}
