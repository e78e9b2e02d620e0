/**
 * What a mail looks like: its entries rendered into subject, HTML and text (pure), and
 * the content key the rate window counts on: a hash of the rendered message and of
 * everything it embeds (referenced assets by their etag).
 */
import { sha256Hex } from '../core/crypto';
import { renderMarkdown, type RenderedMarkdown, type VarView } from '../markup/markdown';
import type { AuthorProfile } from '../markup/block-renderer';
import { authorProfiles } from '../render/block-data';
import { resolveVars, type VarScope } from '../render/source';
import { resolveTheme } from '../markup/themes';
import { DEFAULT_SIZE, SIZES } from './rules';
import { withTemplate } from './template';

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
  /** Asset names the content refers to (`assets/<name>`), embedded as cid: parts. */
  assets: string[];
  /** Threshold colours of the variables the content shows, by CSS class. */
  varColors: [string, string][];
  /** What went wrong composing (a template that could not be read), for the send's log. */
  problems?: string[];
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
}

export function composeMail(
  values: Map<string, string>,
  fallbackSubject: string,
  resolved?: ResolvedVars,
  blocks: MailBlocks = {},
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
  return {
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
  };
}

/**
 * A stored mail composed with its variable references resolved: what a send renders and
 * what the rate window hashes (a changed value changes the content).
 */
export async function composeStored(scope: VarScope, stored: Map<string, string>): Promise<Composed> {
  // The template (config/template) wraps the content first: its variables and blocks render like the content's.
  const { values, problem } = await withTemplate(scope, stored);
  const content = values.get('content') ?? '';
  const [resolved, profiles] = await Promise.all([
    resolveVars(scope, content),
    authorProfiles(scope.db, scope.owner, content),
  ]);
  const composed = composeMail(values, scope.resource.name, resolved, { profiles, origin: scope.env.PUBLIC_ORIGIN });
  return problem ? { ...composed, problems: [problem] } : composed;
}

/** The hidden preheader: inbox previews show it, the opened message does not. */
function preheader(preview: string): string {
  if (!preview) return '';
  // Trailing zero-width joiners keep clients from filling the preview with body text.
  return `<div class="preheader" style="display:none;font-size:1px;line-height:1px;max-height:0;max-width:0;opacity:0;overflow:hidden;mso-hide:all">${esc(preview)}${'&#8204;&nbsp;'.repeat(30)}</div>`;
}

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The message one recipient gets: the body with the footer carrying their unsubscribe link. */
export function personalise(c: Composed, unsubscribe: string): { html: string; text: string } {
  const { theme: t } = resolveTheme(c.theme);
  const html =
    `<!doctype html><html><head><meta charset="utf-8"><title>${esc(c.subject)}</title>` +
    (c.varColors.length
      ? `<style>${c.varColors.map(([cls, color]) => `.${cls}{color:${esc(color)}}`).join('')}</style>`
      : '') +
    `</head>` +
    `<body style="margin:0;padding:0;background:${esc(t.desk)}">` +
    preheader(c.preview) +
    `<div class="mail theme-${esc(c.theme)}" style="max-width:${c.width}px;margin:0 auto;padding:24px;background:${esc(t.bg)};color:${esc(t.fg)};font-family:${esc(t.font)};line-height:1.5">${c.body}</div>` +
    `<p style="max-width:${c.width}px;margin:8px auto;font-size:12px;font-family:${esc(t.font)};color:${esc(t.muted)}">` +
    `You receive this e-mail because you are on its recipient list. <a href="${esc(unsubscribe)}">Unsubscribe</a></p>` +
    `</body></html>`;
  const text = `${c.text}\n\n--\nUnsubscribe: ${unsubscribe}\n`;
  return { html, text };
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
