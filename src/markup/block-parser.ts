/**
 * The grammar of blocks in content (documents and e-mails; the client contract's "section
 * blocks"), parsed to a tree of text, blocks and page breaks:
 *
 *     {{ callout
 *       type: warning
 *       desc: Heads up
 *     }}
 *     markdown body
 *     {{ /callout }}
 *
 * A block opens with `{{ <kind>` (anything after the kind on that line is a parameter
 * line), then indented parameter lines `key: value` (a line without `key:` is
 * positional: the username of `author`, the reference of `attachment` and `vis`), then
 * `}}`; it holds markdown and closes with `{{ /<kind> }}`. `{{ page ... }}` stands alone.
 *
 * Pure functions, line based and fenced-code aware (block-renderer.ts turns the tree into
 * HTML). Degrading rules: a known block without its closer ends with its parent (or the
 * content); a header without `}}` ends at the first unindented or blank line; a stray
 * closer of a known kind is dropped; a block of an unknown kind renders its body (and is
 * only a block when its closer follows, else its lines stay text); `{{ page }}` inside a
 * block is dropped. So no line of a known block's syntax reaches a reader.
 */
const BLOCK_KINDS = ['callout', 'preview', 'paragraph', 'author', 'attachment', 'html', 'vis', 'page'] as const;

export interface TextNode {
  type: 'text';
  /** Markdown (raw HTML for the text directly inside an `html` block). */
  text: string;
}
export interface BlockNode {
  type: 'block';
  /** Lower-case kind as written. */
  kind: string;
  known: boolean;
  /** `key: value` parameters; keys lower-case, `_` and runs of spaces as one space. */
  params: Map<string, string>;
  /** Parameter lines without a key, in order. */
  positional: string[];
  children: ContentNode[];
}
interface PageNode {
  type: 'page';
  params: Map<string, string>;
}
export type ContentNode = TextNode | BlockNode | PageNode;

const KNOWN = new Set<string>(BLOCK_KINDS);
/** Deepest nesting of blocks; an opener deeper than this is dropped (its body stays). */
const MAX_DEPTH = 16;
/** Longest header (parameter lines) of one block. */
const MAX_HEADER_LINES = 64;

const OPENER = /^ {0,3}\{\{[ \t]*([a-zA-Z][a-zA-Z0-9_-]*)(.*)$/;
const CLOSER = /^ {0,3}\{\{[ \t]*\/[ \t]*([a-zA-Z][a-zA-Z0-9_-]*)[ \t]*\}\}[ \t]*$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})(.*)$/;

const KEY = /^[a-zA-Z][a-zA-Z0-9_ -]*$/;
const LINE_BREAK = /[\n\r\u2028\u2029]/;
const isBlank = (c: string | undefined) => c === ' ' || c === '\t';

/**
 * `key: value` of a trimmed parameter line, or null: the key is everything before the
 * first `:` (trailing spaces and tabs dropped), the value everything after it (leading
 * ones dropped). A scan, not a regex: a lazy key followed by `[ \t]*:` retries every
 * length of a long run of spaces, which is quadratic.
 */
function keyValue(s: string): [key: string, value: string] | null {
  const colon = s.indexOf(':');
  if (colon < 0) return null;
  let end = colon;
  while (end > 0 && isBlank(s[end - 1])) end--;
  const key = s.slice(0, end);
  if (!KEY.test(key)) return null;
  let from = colon + 1;
  while (isBlank(s[from])) from++;
  const value = s.slice(from);
  return LINE_BREAK.test(value) ? null : [key, value];
}

function paramLine(line: string, params: Map<string, string>, positional: string[]): void {
  const s = line.trim();
  if (!s) return;
  const kv = keyValue(s);
  if (kv && !kv[1].startsWith('//')) {
    const key = kv[0].toLowerCase().replace(/[_ \t]+/g, ' ');
    if (!params.has(key)) params.set(key, kv[1].trim());
  } else positional.push(s);
}

/** A closer at the end of a line (tested on the line from its last `{{`). */
const TAIL_CLOSER = /^\{\{[ \t]*\/[ \t]*([a-zA-Z][a-zA-Z0-9_-]*)[ \t]*\}\}[ \t]*$/;
const HEAD_OPENER = /^( {0,3}\{\{[ \t]*([a-zA-Z][a-zA-Z0-9_-]*)(?:[ \t][^}]*)?\}\})[ \t]*(\S.*)$/;

/**
 * Lines split so that the syntax of known blocks stands on lines of its own:
 * `{{ callout }} text` and `text {{ /callout }}` (outside fenced code). One pass.
 */
function normalise(source: string): string[] {
  const out: string[] = [];
  let fence: { char: string; len: number } | null = null;
  for (const raw of source.split(/(?<=\n)/)) {
    const line = raw.replace(/\r?\n$/, '');
    const f = FENCE.exec(line);
    if (fence) {
      if (f && f[1]![0] === fence.char && f[1]!.length >= fence.len && !f[2]!.trim()) fence = null;
      out.push(raw);
      continue;
    }
    if (f && !(f[1]![0] === '`' && f[2]!.includes('`'))) {
      fence = { char: f[1]![0]!, len: f[1]!.length };
      out.push(raw);
      continue;
    }
    let rest = line;
    let closer: string | null = null;
    const at = line.lastIndexOf('{{');
    const tail = at > 0 && line.slice(0, at).trim() && !CLOSER.test(line) ? TAIL_CLOSER.exec(line.slice(at)) : null;
    if (tail && KNOWN.has(tail[1]!.toLowerCase())) {
      rest = line.slice(0, at).trimEnd();
      closer = tail[0].trim();
    }
    const head = rest.trimStart().startsWith('{{') ? HEAD_OPENER.exec(rest) : null;
    if (head && KNOWN.has(head[2]!.toLowerCase())) out.push(`${head[1]}\n`, `${head[3]}\n`);
    else if (closer) out.push(`${rest}\n`);
    else {
      out.push(raw);
      continue;
    }
    if (closer) out.push(`${closer}\n`);
  }
  return out;
}

/** Parses content (front matter already split off) into text, blocks and page breaks. */
export function parseBlocks(source: string): ContentNode[] {
  const lines = normalise(source);
  // Last line index of a closer, by kind: an unknown kind is a block only when one follows.
  const lastCloser = new Map<string, number>();
  lines.forEach((l, i) => {
    const m = CLOSER.exec(l.replace(/\r?\n$/, ''));
    if (m) lastCloser.set(m[1]!.toLowerCase(), i);
  });
  const root: ContentNode[] = [];
  const stack: { node: BlockNode; fence: { char: string; len: number } | null }[] = [];
  let rootFence: { char: string; len: number } | null = null;
  const children = () => (stack.length ? stack.at(-1)!.node.children : root);
  const getFence = () => (stack.length ? stack.at(-1)!.fence : rootFence);
  const setFence = (f: { char: string; len: number } | null) => {
    if (stack.length) stack.at(-1)!.fence = f;
    else rootFence = f;
  };
  const text = (l: string) => {
    const c = children();
    const last = c.at(-1);
    if (last?.type === 'text') last.text += l;
    else c.push({ type: 'text', text: l });
  };
  const closeAt = (kind: string): boolean => {
    for (let k = stack.length - 1; k >= 0; k--) {
      if (stack[k]!.node.kind === kind) {
        stack.length = k;
        return true;
      }
    }
    return false;
  };

  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!;
    const line = raw.replace(/\r?\n$/, '');
    const fence = getFence();
    const closer = CLOSER.exec(line);
    if (fence) {
      const f = FENCE.exec(line);
      if (f && f[1]![0] === fence.char && f[1]!.length >= fence.len && !f[2]!.trim()) {
        setFence(null);
        text(raw);
        continue;
      }
      // A closer of an open block ends the code fence left open in its body.
      if (!(closer && stack.some((s) => s.node.kind === closer[1]!.toLowerCase()))) {
        text(raw);
        continue;
      }
    }
    if (closer) {
      const kind = closer[1]!.toLowerCase();
      if (closeAt(kind)) continue;
      if (KNOWN.has(kind)) continue; // a stray closer of a known kind: dropped
      text(raw);
      continue;
    }
    const f = FENCE.exec(line);
    if (f && !(f[1]![0] === '`' && f[2]!.includes('`'))) {
      setFence({ char: f[1]![0]!, len: f[1]!.length });
      text(raw);
      continue;
    }
    const o = OPENER.exec(line);
    if (o) {
      const kind = o[1]!.toLowerCase();
      let rest = o[2]!;
      const known = KNOWN.has(kind);
      const valid =
        (rest === '' || /^[ \t]|^\}\}/.test(rest)) &&
        (!rest.includes('}}') || /\}\}[ \t]*$/.test(rest)) &&
        rest.indexOf('}}') === rest.lastIndexOf('}}');
      if (valid && (known || (lastCloser.get(kind) ?? -1) > i)) {
        const params = new Map<string, string>();
        const positional: string[] = [];
        let closed = /\}\}[ \t]*$/.test(rest);
        if (closed) rest = rest.replace(/\}\}[ \t]*$/, '');
        paramLine(rest, params, positional);
        for (let n = 0; !closed && n < MAX_HEADER_LINES && i + 1 < lines.length; n++) {
          const next = lines[i + 1]!.replace(/\r?\n$/, '');
          if (/^[ \t]*\}\}[ \t]*$/.test(next)) {
            i++;
            closed = true;
          } else if (/^[ \t]+\S/.test(next) && !/^[ \t]*\{\{/.test(next)) {
            i++;
            const end = /\}\}[ \t]*$/.test(next);
            paramLine(end ? next.replace(/\}\}[ \t]*$/, '') : next, params, positional);
            closed = end;
          } else break; // header without `}}`: it ends here, the rest is body
        }
        if (kind === 'page') {
          // A page break only at the top level; inside a block it is dropped.
          if (!stack.length) root.push({ type: 'page', params });
          continue;
        }
        if (stack.length >= MAX_DEPTH) continue;
        const node: BlockNode = { type: 'block', kind, known, params, positional, children: [] };
        children().push(node);
        stack.push({ node, fence: null });
        continue;
      }
    }
    text(raw);
  }
  return root;
}

/** A document reference `/u/<user>/d/<doc>` (also `@user~doc`). */
export interface DocRef {
  user: string;
  doc: string;
}
export function parseDocRef(ref: string | undefined): DocRef | null {
  if (!ref) return null;
  const m =
    /^(?:https?:\/\/[^/\s]+)?\/u\/([a-z0-9_]{1,64})\/d\/([a-z0-9][a-z0-9_-]{0,127})\/?$/i.exec(ref.trim()) ??
    /^@([a-z0-9_]{1,64})~([a-z0-9][a-z0-9_-]{0,127})$/i.exec(ref.trim());
  return m ? { user: m[1]!.toLowerCase(), doc: m[2]!.toLowerCase() } : null;
}

/**
 * The plot a `vis` block names, in its one written form: `/u/<user>/p/<plot>` (a full url
 * of it too, or `@user~plot`), or a plot's shortname; null for anything else.
 */
export function parsePlotRef(ref: string | undefined): string | null {
  const r = (ref ?? '').trim();
  const m =
    /^(?:https?:\/\/[^/\s]+)?\/u\/([a-z0-9_]{1,64})\/p\/([a-z0-9][a-z0-9_-]{0,127})\/?$/i.exec(r) ??
    /^@([a-z0-9_]{1,64})~([a-z0-9][a-z0-9_-]{0,127})$/i.exec(r);
  if (m) return `/u/${m[1]!.toLowerCase()}/p/${m[2]!.toLowerCase()}`;
  return /^[A-Za-z0-9_-]{1,128}$/.test(r) ? r : null;
}

/** The parameter `key`, else the first positional line (`ref:` or a bare reference). */
export const paramOrFirst = (b: BlockNode, key: string): string | undefined => b.params.get(key) ?? b.positional[0];

/** The username an `author` block names (first line, or `username:`), without `@`. */
export function authorOf(b: BlockNode): string | null {
  const u = (b.params.get('username') ?? b.positional[0] ?? '').trim().replace(/^@/, '').toLowerCase();
  return /^[a-z0-9_]{1,64}$/.test(u) ? u : null;
}

/**
 * What a content's blocks need from storage: the users of author blocks (`authorBlocks`:
 * how many blocks name each), the documents of attachment blocks, the plots of vis blocks
 * (with how many blocks name each).
 */
export function blockRefs(nodes: ContentNode[]): {
  authors: string[];
  authorBlocks: Map<string, number>;
  attachments: DocRef[];
  plots: Map<string, number>;
} {
  const authors = new Map<string, number>();
  const attachments = new Map<string, DocRef>();
  const plots = new Map<string, number>();
  const walk = (ns: ContentNode[]) => {
    for (const n of ns) {
      if (n.type !== 'block') continue;
      if (n.kind === 'author') {
        const u = authorOf(n);
        if (u) authors.set(u, (authors.get(u) ?? 0) + 1);
      } else if (n.kind === 'attachment') {
        const r = parseDocRef(paramOrFirst(n, 'ref'));
        if (r) attachments.set(`${r.user}/${r.doc}`, r);
      } else if (n.kind === 'vis') {
        const r = parsePlotRef(paramOrFirst(n, 'ref'));
        if (r) plots.set(r, (plots.get(r) ?? 0) + 1);
      }
      walk(n.children);
    }
  };
  walk(nodes);
  return { authors: [...authors.keys()], authorBlocks: authors, attachments: [...attachments.values()], plots };
}
