/**
 * Blocks rendered to HTML (the tree block-parser.ts makes), given a renderer for the
 * markdown pieces; pure functions.
 *
 * Styles come only from block-styles.ts (fixed tables, strictly validated colours, never
 * raw CSS): inline `style` attributes for e-mail, generated classes (collected into `css`)
 * for documents, whose Content-Security-Policy forbids style attributes.
 */
import { yesNo } from '../core/yes-no';
import {
  authorOf,
  paramOrFirst,
  parseDocRef,
  parsePlotRef,
  type BlockNode,
  type ContentNode,
  type DocRef,
  type TextNode,
} from './block-parser';
import {
  CALLOUT_STYLE,
  calloutType,
  commonDecls,
  FONT_SIZES,
  FONT_STYLES,
  isMargin,
  mailBase,
  type CalloutType,
  type Decl,
} from './block-styles';
import { escapeHtml } from './escape';

/** A user's profile as an author block shows it (fields the profile lacks are left out). */
export interface AuthorProfile {
  username: string;
  name?: string;
  bio?: string;
  /** Url of the user's picture, when they have one. */
  picture?: string;
}

export interface BlockContext {
  /** `mail`: inline styles, preview collected as the preheader, attachments collected. */
  target: 'document' | 'mail';
  /** Profiles the content may show, by username (others render the username only). */
  profiles?: Map<string, AuthorProfile>;
  /** Origin for links to documents (e-mail needs absolute urls); empty: site-relative. */
  origin?: string;
  /**
   * The drawings vis blocks show, by plot (as parsePlotRef writes it): markup the platform
   * drew itself (an SVG in pages, an <img> of its PNG in mail). A plot without one (missing,
   * or not readable by everyone whose content names it) shows its placeholder.
   */
  plots?: ReadonlyMap<string, string>;
}

export interface RenderedBlocks {
  /** HTML per page (the top level split at `{{ page }}`). */
  pages: string[];
  /** CSS rules of the block classes (documents). */
  css: string[];
  /** HTML of the `preview` blocks (e-mail only; documents ignore them). */
  preview: string;
  /** Documents `attachment` blocks name (format pdf), with the file name to give them. */
  attachments: (DocRef & { name: string; format: string })[];
  /** Whether any known block rendered (documents then need `blocksCss`). */
  used: boolean;
}

/** The top level split at page breaks (always at least one page). */
function splitPages(nodes: ContentNode[]): ContentNode[][] {
  const pages: ContentNode[][] = [[]];
  for (const n of nodes) {
    if (n.type === 'page') pages.push([]);
    else pages.at(-1)!.push(n);
  }
  return pages;
}

/**
 * Renders a parsed tree page by page. `markdown` turns a markdown piece into sanitized HTML; `html` sanitizes raw HTML.
 */
export function renderBlocks(
  nodes: ContentNode[],
  ctx: BlockContext,
  markdown: (node: TextNode) => string,
  html: (raw: string) => string,
): RenderedBlocks {
  const css: string[] = [];
  const previews: string[] = [];
  const attachments: RenderedBlocks['attachments'] = [];
  const mail = ctx.target === 'mail';
  const styleRule = (decls: Decl[]) => decls.map(([p, v]) => `${p}:${v}`).join(';');
  /** ` class="..." [style="..."]` for an element with classes, e-mail base styles and extra declarations. */
  const attrs = (classes: string[], extra: Decl[] = [], callout?: CalloutType): string => {
    const cls = [...classes];
    let style = '';
    if (mail) {
      const decls = [...classes.flatMap((c) => mailBase(c, callout)), ...extra];
      if (decls.length) style = ` style="${escapeHtml(styleRule(decls))}"`;
    } else if (extra.length) {
      const name = `sb-s${css.length}`;
      css.push(`.sb.${name}{${styleRule(extra)}}`);
      cls.push(name);
    }
    return ` class="${cls.join(' ')}"${style}`;
  };
  const docUrl = (r: DocRef) => `${ctx.origin ?? ''}/u/${r.user}/d/${r.doc}`;
  /**
   * A box block: a <div> in documents; in e-mail a one-cell presentation table (Outlook pads
   * and fills table cells, not divs), the classes on the table, the styles on the cell.
   */
  const box = (classes: string[], extra: Decl[], inner: string, callout?: CalloutType): string => {
    if (!mail) return `<div${attrs(classes, extra, callout)}>${inner}</div>`;
    const decls = [...classes.flatMap((c) => mailBase(c, callout)), ...extra];
    const margins = decls.filter(isMargin);
    return (
      `<table role="presentation" class="${classes.join(' ')}" width="100%" cellpadding="0" cellspacing="0" border="0" style="${escapeHtml(styleRule([['border-collapse', 'collapse'], ['margin', '16px 0'], ...margins]))}">` +
      `<tr><td style="${escapeHtml(styleRule(decls.filter((d) => !isMargin(d))))}">${inner}</td></tr></table>`
    );
  };

  const render = (ns: ContentNode[], rawText = false): string =>
    ns
      .map((n) => (n.type === 'text' ? (rawText ? html(n.text) : markdown(n)) : n.type === 'block' ? block(n) : ''))
      .join('\n');

  let used = false;
  const block = (b: BlockNode): string => {
    if (b.known) used = true;
    const common = commonDecls(b.params);
    switch (b.kind) {
      case 'callout': {
        const t = calloutType(b.params.get('type'));
        const s = CALLOUT_STYLE[t];
        const desc = b.params.get('desc') ?? b.params.get('title');
        const border = (b.params.get('cborder') ?? '').trim().toLowerCase();
        const borderCls = ['dashed', 'solid', 'none'].includes(border) ? [`sb-cborder-${border}`] : [];
        const borderDecl: Decl[] =
          mail && borderCls.length
            ? border === 'none'
              ? [['border', '0']]
              : [
                  ['border', `1px ${border} ${s.accent}`],
                  ['border-left-width', '4px'],
                ]
            : [];
        return box(
          ['sb', 'sb-callout', `sb-callout-${t}`, ...borderCls],
          [...borderDecl, ...common],
          `<div${attrs(['sb-callout-head'], [], t)}><span class="sb-callout-icon">${s.icon}</span>${desc ? ` <span class="sb-callout-title">${escapeHtml(desc)}</span>` : ''}</div>` +
            `<div class="sb-callout-body">\n${render(b.children)}\n</div>`,
          t,
        );
      }
      case 'preview': {
        if (mail) previews.push(render(b.children));
        return '';
      }
      case 'paragraph': {
        const decls: Decl[] = [];
        const size = FONT_SIZES[(b.params.get('font size') ?? '').trim().toLowerCase()];
        if (size) decls.push(['font-size', size]);
        const style = FONT_STYLES[(b.params.get('font style') ?? '').trim().toLowerCase()];
        if (style) decls.push(style);
        return `<div${attrs(['sb', 'sb-paragraph'], [...decls, ...common])}>\n${render(b.children)}\n</div>`;
      }
      case 'author': {
        const username = authorOf(b);
        const body = render(b.children);
        if (!username) return body;
        const p = ctx.profiles?.get(username);
        const name = p?.name?.trim() || username;
        const override = b.params.get('override bio');
        const bio =
          override !== undefined && override.trim()
            ? override
            : yesNo(b.params.get('include bio'), true)
              ? p?.bio?.trim()
              : undefined;
        const pic = !yesNo(b.params.get('include picture') ?? b.params.get('include pciture'), true)
          ? ''
          : p?.picture && /^(https?:\/\/|\/(?!\/))/.test(p.picture)
            ? `<img${attrs(['sb-author-img'])} src="${escapeHtml(p.picture)}" alt="">`
            : `<span${attrs(['sb-author-pic'])}>${escapeHtml(name.slice(0, 1).toUpperCase())}</span>`;
        const text =
          `<p${attrs(['sb-author-name'])}><strong>${escapeHtml(name)}</strong>${name !== username ? ` <span class="sb-author-user">@${escapeHtml(username)}</span>` : ''}</p>` +
          (bio ? `<p${attrs(['sb-author-bio'])}>${escapeHtml(bio)}</p>` : '');
        if (mail) {
          // A row of two cells: the picture (or the initial on a filled cell), then name and bio.
          const margins = common.filter(isMargin);
          const picCell = !pic
            ? ''
            : pic.startsWith('<img')
              ? `<td width="52" valign="middle" style="width:52px;padding:0 12px 0 0">${pic.replace('<img', '<img width="40" height="40"')}</td>`
              : `<td width="52" valign="middle" style="width:52px;padding:0 12px 0 0"><table role="presentation" cellpadding="0" cellspacing="0" border="0" style="border-collapse:collapse"><tr><td${attrs(['sb-author-pic'])} width="40" height="40" align="center" valign="middle">${escapeHtml(name.slice(0, 1).toUpperCase())}</td></tr></table></td>`;
          return (
            `<table role="presentation" class="sb sb-author" cellpadding="0" cellspacing="0" border="0" style="${escapeHtml(styleRule([['border-collapse', 'collapse'], ['margin', '16px 0'], ...margins]))}">` +
            `<tr>${picCell}<td class="sb-author-text" valign="middle" style="${escapeHtml(styleRule([['padding', '0'], ...common.filter((d) => !isMargin(d))]))}">${text}</td></tr></table>${body ? `\n${body}` : ''}`
          );
        }
        return (
          `<div${attrs(['sb', 'sb-author'], common)}>${pic}<div class="sb-author-text">` +
          text +
          `</div></div>${body ? `\n${body}` : ''}`
        );
      }
      case 'attachment': {
        const ref = parseDocRef(paramOrFirst(b, 'ref'));
        const body = render(b.children);
        if (!ref) return body;
        // PDF is the one format an attachment is rendered in: any `format` given still attaches the PDF.
        const format = 'pdf';
        const name = (b.params.get('name') ?? '').trim() || `${ref.doc}.${format}`;
        if (mail) attachments.push({ ...ref, name, format });
        return box(
          ['sb', 'sb-box', 'sb-attachment'],
          common,
          `📎 <a href="${escapeHtml(docUrl(ref))}">${escapeHtml(name)}</a>${body ? `\n${body}` : ''}`,
        );
      }
      case 'html':
        return `<div${attrs(['sb', 'sb-html'], common)}>\n${render(b.children, true)}\n</div>`;
      case 'vis': {
        const ref = (paramOrFirst(b, 'ref') ?? '').trim();
        const align = (b.params.get('align') ?? '').trim().toLowerCase();
        const alignCls = align === 'left' || align === 'right' ? [`sb-vis-${align}`] : [];
        const width = /^(100|[1-9]?[0-9])%$/.exec((b.params.get('width') ?? '').trim())?.[0];
        const title = b.params.get('override title') ?? (yesNo(b.params.get('include title'), false) ? ref : undefined);
        const caption = b.params.get('override caption');
        const link =
          yesNo(b.params.get('include link'), false) && /^\/[a-z0-9_/~-]+$/i.test(ref)
            ? `${ctx.origin ?? ''}${ref}`
            : null;
        const drawing = ctx.plots?.get(parsePlotRef(ref) ?? '');
        const visBox = `<div${attrs(
          drawing ? ['sb-vis-box', 'sb-vis-drawn'] : ['sb-box', 'sb-vis-box'],
          width
            ? [
                ['width', width],
                ['display', 'inline-block'],
              ]
            : [],
        )}>${drawing ?? `Visual: ${link ? `<a href="${escapeHtml(link)}">${escapeHtml(ref)}</a>` : escapeHtml(ref || 'no reference')}`}</div>`;
        return (
          `<div${attrs(['sb', 'sb-vis', ...alignCls], [...(mail && align ? ([['text-align', align === 'center' ? 'center' : align]] as Decl[]) : []), ...common])}>` +
          (title ? `<p class="sb-vis-title"><strong>${escapeHtml(title)}</strong></p>` : '') +
          visBox +
          (caption ? `<p class="sb-vis-caption">${escapeHtml(caption)}</p>` : '') +
          `${render(b.children)}</div>`
        );
      }
      default:
        // Unknown kinds: the body as plain markdown.
        return render(b.children);
    }
  };

  const pages = splitPages(nodes).map((p) => render(p));
  return { pages, css, preview: previews.join('\n'), attachments, used };
}
