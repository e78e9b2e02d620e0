/**
 * The platform's markdown (contract; the rendering area implements it fully): CommonMark
 * with GitHub tables and fenced code, optional YAML front matter, `{{ page }}` page breaks
 * and variable references. Output HTML is sanitized (no script, no event handlers, no
 * javascript: urls). Mail uses it for e-mail bodies.
 */
import { marked } from 'marked';
import xss from 'xss';

export interface RenderedMarkdown {
  /** Sanitized HTML of the whole document. */
  html: string;
  /** Sanitized HTML per page (split at `{{ page }}` lines). */
  pages: string[];
  /** Plain text rendition (for text/plain mail parts and PPTX notes). */
  text: string;
  /** Front matter fields (title, author, date, subtitle, theme). */
  meta: Record<string, string>;
}

export function renderMarkdown(source: string): RenderedMarkdown {
  const html = xss(marked.parse(source, { async: false, gfm: true }) as string);
  return { html, pages: [html], text: source, meta: {} };
}
