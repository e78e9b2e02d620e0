/**
 * An SVG drawn into an HTML page gives its <style> to the page: the pages' policies allow
 * one style element, by its hash, so a plot's own style is moved into it. Every rule of a
 * drawing is prefixed by its scope (svg.ts), so styles of several plots on one page do not
 * meet. The SVG holds its style as XML text (entities escaped); an HTML <style> holds raw
 * text, so the five entities are read back. The drawing's CSS holds no `<` (css.ts), so the
 * raw text never closes the page's style element. Pure.
 */
const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

export function hoistStyle(svg: string): { svg: string; style: string } {
  const m = /<style[^>]*>([\s\S]*?)<\/style>/.exec(svg);
  if (!m) return { svg, style: '' };
  const style = m[1]!.replace(/&(amp|lt|gt|quot|apos);/g, (_, e: string) => ENTITIES[e]!).replace(/</g, '');
  return { svg: svg.slice(0, m.index) + svg.slice(m.index + m[0].length), style };
}
