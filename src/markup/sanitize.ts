/**
 * Sanitizing the HTML that markdown renders (xss): no script, no event handlers, no
 * javascript: urls, data: urls only as an image's source, no input but a disabled checkbox.
 * Pure.
 */
import * as xssModule from 'xss';

// CommonJS module: its namespace may arrive as `default` depending on the bundler (its typings declare none).
const xss = ('default' in xssModule && xssModule.default ? xssModule.default : xssModule) as typeof xssModule;

const whiteList = (() => {
  const w = xss.getDefaultWhiteList();
  for (const tag of ['span', 'div', 'code', 'pre', 'section', 'p', 'table', 'td', 'th'])
    w[tag] = [...(w[tag] ?? []), 'class'];
  w.span = [...w.span!, 'title'];
  // Inputs are rebuilt whole by onTag (inputTag): this entry only marks them as known.
  w.input = [];
  w.ol = ['start'];
  return w;
})();

/**
 * An `<input>` as it may stay: a disabled checkbox, as a GFM task list draws it (checked or
 * not), and nothing else. Any other input (a missing or other `type`, drawn as a text box
 * that asks for a password, a submit button, an image) is removed whole, with every
 * attribute but `checked` (a name, a value, a form target).
 */
function inputTag(html: string): string {
  const attrs = new Map<string, string>();
  const inside = html.replace(/^<input/i, '').replace(/\/?>$/, '');
  xss.parseAttr(inside, (name, value) => {
    if (!attrs.has(name)) attrs.set(name, xss.friendlyAttrValue(value).trim().toLowerCase());
    return '';
  });
  if (attrs.get('type') !== 'checkbox') return '';
  return attrs.has('checked') ? '<input checked disabled type="checkbox">' : '<input disabled type="checkbox">';
}

/** Attributes whose value is a URL a browser loads or follows. */
const URL_ATTRS = new Set(['href', 'src', 'srcset', 'poster', 'cite', 'background', 'action', 'formaction']);

/** Whether a URL attribute's value (as a browser reads it: entities decoded, blanks trimmed) is a data: URL. */
const isDataUrl = (name: string, value: string) =>
  URL_ATTRS.has(name) && /^data:/i.test(xss.friendlyAttrValue(value).trim());

const sanitizer = new xss.FilterXSS({
  whiteList,
  stripIgnoreTag: true,
  stripIgnoreTagBody: ['script', 'style', 'iframe', 'object', 'embed', 'noscript', 'template'],
  allowCommentTag: false,
  onTag(tag: string, html: string, info: { isClosing?: boolean }) {
    if (tag === 'input') return info.isClosing ? '' : inputTag(html);
    return undefined;
  },
  onTagAttr(tag: string, name: string, value: string) {
    // data: URLs only as an image's source (inlined pictures); never a link, a video, a poster.
    if (isDataUrl(name, value) && !(tag === 'img' && name === 'src')) return '';
    return undefined;
  },
});

/**
 * HTML with only the allowed tags and attributes: no script, no event handlers, no javascript: urls, data: urls
 * only as an image's source, inputs only as disabled checkboxes.
 */
export function sanitizeHtml(html: string): string {
  return sanitizer.process(html);
}
