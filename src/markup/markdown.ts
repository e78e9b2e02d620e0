/**
 * The platform's markdown: CommonMark with GitHub tables and fenced code (marked), an
 * optional YAML front matter between `---` lines (title, author, date, subtitle, theme),
 * a line `{{ page }}` that starts a new page (a new slide for `pres`), and variable
 * references `{/u/<user>/d/<doc>/v/<var>}` that render as the variable's formatted value
 * (never inside code). Output HTML is sanitized (sanitize.ts): no script, no event handlers, no
 * javascript: urls, data: urls only as an image's source, no input but a disabled
 * checkbox. Blocks (`{{ callout ... }}` ... `{{ /callout }}`, block-parser.ts) are
 * parsed before markdown; their bodies render as markdown, each piece sanitized, inside
 * wrappers built from validated parameters only. Pure functions: no I/O. Mail uses
 * `renderMarkdown` for e-mail bodies.
 */
import { Marked, type MarkedExtension, type Tokens, type TokensList } from 'marked';
import { parse as parseYaml } from 'yaml';
import { escapeHtml } from './escape';
import { htmlToText } from './html-text';
import { sanitizeHtml } from './sanitize';
import { boundMarkdown } from './markdown-bounds';
import { blockRefs, parseBlocks, type ContentNode, type DocRef, type TextNode } from './block-parser';
import { renderBlocks, type BlockContext, type RenderedBlocks } from './block-renderer';

export interface RenderedMarkdown {
  /** Sanitized HTML of the whole document (pages one after the other). */
  html: string;
  /** Sanitized HTML per page (split at `{{ page }}` lines). */
  pages: string[];
  /** Plain text rendition (for text/plain mail parts and PPTX notes). */
  text: string;
  /** Plain text per page. */
  pageTexts: string[];
  /** Front matter fields (title, author, date, subtitle, theme) that were given. */
  meta: Record<string, string>;
  /** CSS rules of the blocks' generated classes (documents: into the page's style element). */
  css: string[];
  /** Plain text of the `preview` blocks (e-mail: the inbox preview; empty for documents). */
  preview: string;
  /** Documents named by `attachment` blocks (e-mail only). */
  attachments: RenderedBlocks['attachments'];
  /** Whether the content has blocks (their CSS is then needed). */
  hasBlocks: boolean;
}

/** A variable reference `{/u/<user>/d/<doc>/v/<var>}` found in content. */
export interface VarRef {
  user: string;
  doc: string;
  name: string;
  /** `user/doc/name`: the key of `RenderOptions.vars`. */
  key: string;
}

/** How a resolved variable renders. */
export interface VarView {
  text: string;
  band: 'up' | 'down' | 'none';
  about?: string;
  /** Index into `RenderOptions.varColors` (a CSS class `var-c<N>` carries the colour). */
  colorClass?: string;
}

export interface RenderOptions {
  /** Resolved variables by `user/doc/name`; references without one render as written. */
  vars?: Map<string, VarView>;
  /** Maps an asset name (from `assets/<name>` references) to the url to use, or null to leave it. */
  asset?: (name: string) => string | null;
  /** How section blocks render (default: for a document, usernames only in author blocks). */
  blocks?: BlockContext;
}

const META_KEYS = ['title', 'author', 'date', 'subtitle', 'theme'] as const;

const FRONT_MATTER = /^---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;
const PAGE_LINE = /^ {0,3}\{\{[ \t]*page[ \t]*\}\}[ \t]*(?:\r?\n|$)/;
const VAR_REF = /^\{\/u\/([a-z0-9_]{1,64})\/d\/([a-z0-9][a-z0-9_]{0,127})\/v\/([a-z0-9_-]{1,50})\}/;
/** Asset references in content and custom CSS: `assets/<name>` or `./assets/<name>`. */
const ASSET_REF = /^(?:\.\/)?assets\/([a-z0-9][a-z0-9-]*(?:\.[a-z0-9]+)?)$/;

/**
 * Largest front matter read, in characters: it holds five short fields, and YAML parsing
 * costs microseconds per character. A longer one is dropped like bad YAML.
 */
const FRONT_MATTER_LIMIT = 16 * 1024;

/** Splits an optional YAML front matter off the content. Bad or oversized YAML is dropped (meta stays empty). */
export function splitFrontMatter(source: string): { meta: Record<string, string>; body: string } {
  const m = FRONT_MATTER.exec(source.replace(/^\uFEFF/, ''));
  if (!m) return { meta: {}, body: source };
  const body = source.replace(/^\uFEFF/, '').slice(m[0].length);
  if (m[1]!.length > FRONT_MATTER_LIMIT) return { meta: {}, body };
  let data: unknown;
  try {
    data = parseYaml(m[1]!, { maxAliasCount: 10 });
  } catch {
    return { meta: {}, body };
  }
  const meta: Record<string, string> = {};
  if (data && typeof data === 'object' && !Array.isArray(data)) {
    for (const key of META_KEYS) {
      const v = (data as Record<string, unknown>)[key];
      if (v === undefined || v === null || typeof v === 'object') continue;
      meta[key] = String(v).slice(0, 500);
    }
  }
  return { meta, body };
}

interface PageBreakToken extends Tokens.Generic {
  type: 'pagebreak';
}
interface VarRefToken extends Tokens.Generic {
  type: 'varref';
  ref: VarRef;
}

/** Characters marked's inline text always stops before (after its first character, or its leading run of ` or ~). */
const TEXT_STOPS = new Set(['\\', '<', '!', '[', '`', '*', '~', '_']);

/**
 * Where the next variable reference starts in `src` (the rest of an inline text after its
 * first character), for marked to end the text there. Only the stretch the text can
 * reach is searched: a reference past the next character the text stops before cannot
 * change the token, and searching the whole rest from every text token is quadratic.
 */
function nextVarRef(src: string): number | undefined {
  let i = 0;
  const lead = src[0];
  if (lead === '`' || lead === '~') while (src[i] === lead) i++;
  for (; i < src.length; i++) {
    const c = src[i]!;
    if (c === '{' && src.startsWith('{/u/', i)) return i;
    if (TEXT_STOPS.has(c)) return undefined;
  }
  return undefined;
}

function extensions(opts: RenderOptions): MarkedExtension {
  return {
    gfm: true,
    extensions: [
      {
        name: 'pagebreak',
        level: 'block',
        // No `start`: marked would call it with the rest of the text at every paragraph, and
        // a search of the rest each time is quadratic. Without it a page line right under a
        // paragraph's text stays in the paragraph; rendering never meets one there (section
        // parsing has taken the page lines out before markdown runs).
        tokenizer(src: string): PageBreakToken | undefined {
          const m = PAGE_LINE.exec(src);
          return m ? { type: 'pagebreak', raw: m[0] } : undefined;
        },
        renderer: () => '',
      },
      {
        name: 'varref',
        level: 'inline',
        start: nextVarRef,
        tokenizer(src: string): VarRefToken | undefined {
          const m = VAR_REF.exec(src);
          if (!m) return undefined;
          // VAR_REF has three groups, none optional.
          const [user, doc, name] = [m[1]!, m[2]!, m[3]!];
          return { type: 'varref', raw: m[0], ref: { user, doc, name, key: `${user}/${doc}/${name}` } };
        },
        renderer(token) {
          const t = token as VarRefToken;
          const v = opts.vars?.get(t.ref.key);
          if (!v) return `<span class="var var-missing">${escapeHtml(t.raw)}</span>`;
          const cls = ['var', `var-${v.band}`, v.colorClass].filter(Boolean).join(' ');
          const title = v.about ? ` title="${escapeHtml(v.about)}"` : '';
          return `<span class="${cls}"${title}>${escapeHtml(v.text)}</span>`;
        },
      },
    ],
    ...(opts.blocks?.target === 'mail' ? { renderer: { paragraph: mailButton } } : {}),
  };
}

/**
 * E-mail: a paragraph that is one link titled `button` (`[Read it](https://… "button")`) is a
 * link that matters, drawn as a table-cell button (mail-styles.ts fills it): the one button
 * shape Outlook on Windows renders. Any other paragraph renders as marked renders it.
 */
function mailButton(this: { parser: { parseInline: (t: Tokens.Generic[]) => string } }, p: Tokens.Paragraph) {
  const only = p.tokens.length === 1 ? p.tokens[0] : undefined;
  if (only?.type !== 'link' || (only as Tokens.Link).title?.trim().toLowerCase() !== 'button') return false;
  return `<table class="mail-button"><tr><td class="mail-button">${this.parser.parseInline(p.tokens)}</td></tr></table>\n`;
}

/**
 * marked's tokens of a piece within the bounds of markdown-bounds.ts; a piece marked still
 * cannot lex (a RangeError from a shape no bound foresaw) renders as a code block of its
 * text, never an error answer.
 */
function lexBounded(marked: Marked, body: string): TokensList {
  try {
    return marked.lexer(boundMarkdown(body));
  } catch (err) {
    if (!(err instanceof RangeError)) throw err;
    const code: Tokens.Code = { type: 'code', raw: body, text: body };
    return Object.assign([code], { links: {} }) as TokensList;
  }
}

/** Lexes one markdown piece, pointing `assets/<name>` references at their urls. */
function lexPiece(marked: Marked, body: string, opts: RenderOptions): TokensList {
  const tokens = lexBounded(marked, body);
  if (opts.asset) {
    const asset = opts.asset;
    marked.walkTokens(tokens, (t) => {
      if (t.type !== 'image' && t.type !== 'link') return;
      const m = ASSET_REF.exec(t.href);
      if (m) t.href = asset(m[1]!) ?? t.href;
    });
  }
  return tokens;
}

/**
 * The markdown pieces of a content tree, in order, as the renderer lexes them: the text of
 * every block (nested ones too) except the raw HTML directly inside an `html` block.
 */
function markdownPieces(nodes: ContentNode[], raw = false, out: TextNode[] = []): TextNode[] {
  for (const n of nodes) {
    if (n.type === 'text' && !raw) out.push(n);
    else if (n.type === 'block') markdownPieces(n.children, n.kind === 'html', out);
  }
  return out;
}

/** Every token of the content's markdown pieces, lexed piece by piece as the renderer does. */
function walkPieces(tree: ContentNode[], visit: (t: Tokens.Generic) => void): void {
  const marked = new Marked(extensions({}));
  for (const piece of markdownPieces(tree)) marked.walkTokens(lexPiece(marked, piece.text, {}), visit);
}

const contentTree = (source: string) => parseBlocks(splitFrontMatter(source).body);

/** The variable references of a tree (duplicates removed) and how often each key occurs. */
function varUsesIn(tree: ContentNode[]): { refs: VarRef[]; uses: Map<string, number> } {
  const out = new Map<string, VarRef>();
  const uses = new Map<string, number>();
  walkPieces(tree, (t) => {
    if (t.type !== 'varref') return;
    const ref = (t as VarRefToken).ref;
    out.set(ref.key, ref);
    uses.set(ref.key, (uses.get(ref.key) ?? 0) + 1);
  });
  return { refs: [...out.values()], uses };
}

const varRefsIn = (tree: ContentNode[]): VarRef[] => varUsesIn(tree).refs;

/** Every variable reference outside code, in order of appearance (duplicates removed). */
export function varRefs(source: string): VarRef[] {
  return varRefsIn(contentTree(source));
}

/** Every `assets/<name>` an image or link of the content points at. */
export function assetRefs(source: string): string[] {
  const out = new Set<string>();
  walkPieces(contentTree(source), (t) => {
    if (t.type !== 'image' && t.type !== 'link') return;
    const m = ASSET_REF.exec((t as Tokens.Link).href);
    if (m) out.add(m[1]!);
  });
  return [...out];
}

/** What content names that its render reads from storage: variables, attached documents, authors. */
export interface ContentRefs {
  vars: VarRef[];
  attachments: DocRef[];
  authors: string[];
  /** Plots of vis blocks, as written in one form (block-parser.ts parsePlotRef). */
  plots: string[];
  /** How many times each variable key, author block's user and vis block's plot occur (what filling them in costs). */
  uses: { vars: Map<string, number>; authors: Map<string, number>; plots: Map<string, number> };
}

export function contentRefs(source: string): ContentRefs {
  const tree = contentTree(source);
  const { refs, uses } = varUsesIn(tree);
  const { authors, authorBlocks, attachments, plots } = blockRefs(tree);
  return {
    vars: refs,
    attachments,
    authors,
    plots: [...plots.keys()],
    uses: { vars: uses, authors: authorBlocks, plots },
  };
}

/** Renders the platform's markdown to sanitized HTML, page by page. */
export function renderMarkdown(source: string, opts: RenderOptions = {}): RenderedMarkdown {
  const { meta, body } = splitFrontMatter(source);
  const tree = parseBlocks(body);
  // Every markdown piece is lexed first, so that reference links resolve across pieces.
  const marked = new Marked(extensions(opts));
  const lexed = new Map<TextNode, TokensList>();
  const links: TokensList['links'] = {};
  for (const n of markdownPieces(tree)) {
    const tokens = lexPiece(marked, n.text, opts);
    for (const [k, v] of Object.entries(tokens.links)) if (!(k in links)) links[k] = v;
    lexed.set(n, tokens);
  }
  const blocks = renderBlocks(
    tree,
    opts.blocks ?? { target: 'document' },
    (n) => {
      const tokens = lexed.get(n);
      return tokens ? sanitizeHtml(marked.parser(Object.assign(tokens, { links }))) : '';
    },
    sanitizeHtml,
  );
  const pages = blocks.pages;
  const keepUrls = opts.blocks?.target === 'mail';
  const pageTexts = pages.map((page) => htmlToText(page, { links: keepUrls }));
  return {
    html: pages.join('\n'),
    pages,
    text: pageTexts.filter(Boolean).join('\n\n'),
    pageTexts,
    meta,
    css: blocks.css,
    preview: htmlToText(blocks.preview).replace(/\s+/g, ' ').trim(),
    attachments: blocks.attachments,
    hasBlocks: blocks.used,
  };
}
