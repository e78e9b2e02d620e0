/**
 * What a mail looks like: its entries rendered into subject, HTML and text (pure), and
 * the content key the rate window counts on: a hash of the rendered message and of
 * everything it embeds (referenced assets by their etag).
 */
import { sha256Hex } from '../core/crypto';
import { lenders, type StoredAuthorship } from '../core/entries';
import { HttpError } from '../core/errors';
import { composedTooLarge } from '../markup/composed-size';
import { renderMarkdown, type RenderedMarkdown, type VarView } from '../markup/markdown';
import type { AuthorProfile } from '../markup/block-renderer';
import { principalsWith } from '../core/resource';
import { escapeHtml } from '../markup/escape';
import { drawStored, requestKey } from '../plots/draw';
import type { Size } from '../plots/model';
import { drawingHash } from '../plots/stored';
import { resolveContent, type ContentPiece, type ResolvedPlot, type VarScope } from '../render/resolve';
import { imageSizes } from './image-size';
import { fillFooter, mailBytes, mailDocument, MAIL_HTML_LIMIT, oversizeBody, type MailDocInput } from './mail-html';
import { mailKind } from './kind';
import { DEFAULT_SIZE, SIZES } from './rules';
import { placeInTemplate, templateOf } from './template';

export interface Composed {
  subject: string;
  /** Body HTML without the per-recipient footer (and without the preview text). */
  body: string;
  /** Inbox preview text from `preview` blocks: a hidden preheader in the HTML part, absent from the text part. */
  preview: string;
  text: string;
  theme: string;
  width: number;
  replyTo: string;
  /** Documents the content's `attachment` blocks name: attached as PDFs at delivery (attach.ts). */
  documents: RenderedMarkdown['attachments'];
  /** Those of them everyone whose content names them may read: their ids by `user/doc` (composeStored). */
  attachable?: Map<string, number>;
  /** Asset names the content refers to (`assets/<name>`), embedded as cid: parts. */
  assets: string[];
  /** Threshold colours of the variables the content shows, by CSS class. */
  varColors: [string, string][];
  /** The web view's url (`/u/<owner>/m/<mail>`): linked from every message. */
  viewUrl: string;
  /** The HTML part of a send, with a slot for the recipient's footer (mail-html.ts). */
  html: string;
  /** Bytes of the full HTML part (footer at its longest). */
  htmlBytes: number;
  /** The full HTML was over MAIL_HTML_LIMIT: `html` is a notice linking the web view. */
  oversize: boolean;
  /** What went wrong composing (a template that could not be read), for the send's log. */
  problems?: string[];
  /** The plots vis blocks show, as PNGs embedded as cid: parts (composeStored). */
  visuals?: Visual[];
}

/** A plot a mail's vis block shows: drawn as a PNG (mail programs show no SVG), embedded as `cid:<filename>`. */
interface Visual {
  filename: string;
  plotId: number;
  /** What was drawn (the PNG's cache key). */
  hash: string;
  svg: string;
  size: Size;
}

/** Variables the content refers to, resolved (render/source.ts resolveVars). */
export interface ResolvedVars {
  vars: Map<string, VarView>;
  colors: Map<string, string>;
}

/** The renderer resolves `assets/<name>` to this placeholder (it survives sanitizing); we make it a cid: url. */
const PLACEHOLDER = './assets-cid/';
const PLACED = /(src|href)="\.\/assets-cid\/([a-z0-9][a-z0-9-]*(?:\.[a-z0-9]+)?)"/g;

/** What blocks show in a mail: author profiles (render/block-data.ts) and the origin of document links. */
export interface MailBlocks {
  profiles?: Map<string, AuthorProfile>;
  origin?: string;
  /** What vis blocks show, by plot: an <img> of its embedded PNG. */
  plots?: ReadonlyMap<string, string>;
  /** The mail's web view url (the "view in browser" link). */
  viewUrl?: string | undefined;
}

export function composeMail(
  values: Map<string, string>,
  fallbackSubject: string,
  resolved?: ResolvedVars,
  { viewUrl, ...blocks }: MailBlocks = {},
): Composed {
  const assets = new Set<string>();
  const rendered = renderMarkdown(values.get('content') ?? '', {
    ...(resolved ? { vars: resolved.vars } : {}),
    blocks: { target: 'mail', ...blocks },
    asset: (name) => {
      assets.add(name);
      return `${PLACEHOLDER}${name}`;
    },
  });
  const body = rendered.html.replace(PLACED, (_m, attr: string, name: string) => `${attr}="cid:${name}"`);
  const size = values.get('config/size') || DEFAULT_SIZE;
  const composed = {
    subject: (values.get('config/subject') || values.get('name') || fallbackSubject).replace(/[\r\n]+/g, ' '),
    body,
    preview: rendered.preview,
    documents: rendered.attachments,
    text: rendered.text,
    theme: values.get('config/theme') || 'default',
    width: SIZES[size] ?? SIZES[DEFAULT_SIZE]!,
    replyTo: values.get('config/reply_to')?.trim() ?? '',
    assets: [...assets].sort(),
    varColors: resolved ? [...resolved.colors] : [],
    viewUrl: viewUrl ?? '',
  };
  return { ...composed, ...sendDocument(composed) };
}

/**
 * A stored mail composed with its references resolved now: what a send renders and what
 * the rate window hashes (a changed value changes the content). The content's references
 * resolve with the rights of the mail's owner, the content's writer and `lent` (a send adds
 * whoever triggered it and wrote its recipient lists); the template's (config/template) with
 * those of whoever chose it, its owner and its writer too (template.ts). 413 when the whole
 * would be over the composition limit (markup/composed-size.ts).
 */
export async function composeStored(
  scope: VarScope,
  stored: Map<string, string>,
  authorship: ReadonlyMap<string, StoredAuthorship>,
  lent: readonly number[] = [],
): Promise<Composed> {
  const { owner } = scope;
  const { template, problem } = await templateOf(scope, stored, authorship, lent);
  const content = stored.get('content') ?? '';
  const pieces: ContentPiece[] = [
    {
      path: 'mail.content',
      text: content,
      principals: principalsWith([owner.id, ...lent], lenders(authorship.get('content'), owner.id)),
    },
    ...(template
      ? [{ path: 'mail.template-content' as const, text: template.text, principals: template.principals }]
      : []),
  ];
  const resolved = await resolveContent(scope, pieces);
  const tooLarge = composedTooLarge(resolved.bytes, 'the e-mail');
  if (tooLarge) throw new HttpError(413, tooLarge);
  const values = template ? new Map(stored).set('content', placeInTemplate(template.text, content)) : stored;
  const { visuals, images } = await mailVisuals(resolved.plots, SIZES[values.get('config/size') || DEFAULT_SIZE]);
  const composed = composeMail(values, scope.resource.name, resolved, {
    plots: images,
    profiles: resolved.profiles,
    origin: scope.env.PUBLIC_ORIGIN,
    viewUrl: mailKind.url?.(scope.env, owner.username, scope.resource.name),
  });
  const problems = [...(problem ? [problem] : []), ...resolved.refused];
  return { ...composed, attachable: resolved.attachments, visuals, ...(problems.length ? { problems } : {}) };
}

/** The <img> a mail's vis block holds: the embedded PNG, as wide as the mail at most, scaled down on narrow screens. */
export const visualImage = (filename: string, alt: string, size: Size): string =>
  `<img src="cid:${filename}" alt="${escapeHtml(alt)}" width="${size.width}" height="${size.height}" style="display:block;width:100%;max-width:${size.width}px;height:auto;border:0">`;

/**
 * The plots of vis blocks as a mail shows them: each drawn at the mail's width (16:9), its
 * PNG (drawn at delivery, render/plot-png.ts) named by the hash of what it shows, so a
 * changed plot is a changed message; the <img> each block holds.
 */
async function mailVisuals(
  plots: ReadonlyMap<string, ResolvedPlot>,
  width = SIZES[DEFAULT_SIZE]!,
): Promise<{ visuals: Visual[]; images: Map<string, string> }> {
  const visuals: Visual[] = [];
  const images = new Map<string, string>();
  const size = { width, height: Math.round((width * 9) / 16) };
  for (const [ref, p] of plots) {
    const req = { format: 'svg', size } as const;
    const { drawing, hash } = await drawStored(p.values, p.name, req);
    const filename = `vis-${hash.slice(0, 16)}.png`;
    visuals.push({
      filename,
      plotId: p.id,
      hash: await drawingHash(p.values, p.name, `png ${requestKey(req)}`),
      svg: drawing,
      size,
    });
    images.set(ref, visualImage(filename, p.values.get('config/title') || p.values.get('name') || p.name, size));
  }
  return { visuals, images };
}

/** The document fields of a composed mail (mail-html.ts): the send's and the web view's. */
export const docInput = (c: Pick<Composed, keyof MailDocInput & keyof Composed>): MailDocInput => ({
  subject: c.subject,
  body: c.body,
  preview: c.preview,
  theme: c.theme,
  width: c.width,
  varColors: c.varColors,
});

/** The HTML part of a send before its footer: the composed body, or the notice that links the web view. */
function sendDocument(
  c: Omit<Composed, 'html' | 'htmlBytes' | 'oversize'>,
): Pick<Composed, 'html' | 'htmlBytes' | 'oversize'> {
  const full = mailDocument({ ...docInput(c), ...(c.viewUrl ? { viewUrl: c.viewUrl } : {}), footer: true });
  const htmlBytes = mailBytes(full);
  if (htmlBytes <= MAIL_HTML_LIMIT || !c.viewUrl) return { html: full, htmlBytes, oversize: false };
  const html = mailDocument({
    ...docInput(c),
    body: oversizeBody(c.viewUrl, c.theme),
    viewUrl: c.viewUrl,
    footer: true,
  });
  return { html, htmlBytes, oversize: true };
}

/** The log line of a send whose HTML was too large to go whole. */
export const oversizeNote = (c: Composed) =>
  `the HTML is ${Math.ceil(c.htmlBytes / 1024)} KB, over the ${MAIL_HTML_LIMIT / 1024} KB mail programs show whole: the message carries a notice linking its web view (${c.viewUrl}) instead; the text part is whole`;

/** Picture sizes per composed mail, worked out once per send rather than once per recipient. */
const sized = new WeakMap<Composed, string>();

/**
 * The message one recipient gets: the composed document with the footer carrying their
 * unsubscribe link; `embedded` (the send's cid: parts) gives pictures their width/height.
 */
export function personalise(
  c: Composed,
  unsubscribe: string,
  embedded: readonly { filename: string; content: Uint8Array }[] = [],
): { html: string; text: string } {
  let doc = sized.get(c);
  if (doc === undefined) {
    const images = imageSizes(embedded.filter((e) => c.assets.includes(e.filename)));
    doc =
      c.oversize || !images.size
        ? c.html
        : mailDocument({ ...docInput(c), ...(c.viewUrl ? { viewUrl: c.viewUrl } : {}), footer: true, images });
    sized.set(c, doc);
  }
  const text = `${c.text}\n\n--\nUnsubscribe: ${unsubscribe}\n`;
  return { html: fillFooter(doc, unsubscribe, c.theme), text };
}

/** The content key: the same rendered message with the same embedded assets hashes the same. */
export async function contentKey(c: Composed, assetTags: string[]): Promise<string> {
  return sha256Hex(
    JSON.stringify([
      c.subject,
      c.body,
      c.text,
      c.theme,
      c.width,
      c.replyTo,
      c.varColors,
      assetTags,
      ...(c.preview ? [c.preview] : []),
    ]),
  );
}
