/**
 * What content names, resolved when the content is used (core/resource/composition.ts):
 * the variables of other documents, the profiles of author blocks, the documents of
 * attachment blocks and the plots of vis blocks, each only when everyone the naming piece
 * lends the rights of may read it. A document's page has one piece (its content); a mail's composition two (its content
 * and its template's). A target named by several pieces resolves only when every one of
 * them may read it. One D1 round trip for all pieces: the check, the variables of the
 * documents named and the profiles named, in one batch.
 */
import { sql } from 'drizzle-orm';
import type { Db } from '../core/context';
import { entriesQuery, entryValues, type StoredEntry } from '../core/entries';
import { composedReads, plotIdSql, plotReference, type CompositionPath, type Use } from '../core/resource';
import { resources, users, type Resource, type User } from '../db/schema';
import { docKind } from '../docs/kind';
import { formatVar, varsFromEntries, type DocVar } from '../docs/vars';
import type { AuthorProfile } from '../markup/block-renderer';
import { composedBytes } from '../markup/composed-size';
import { contentRefs, type ContentRefs, type VarView } from '../markup/markdown';
import { profileOf, profilesQuery, type ProfileRow } from './block-data';

/** At most this many distinct authors resolve per composition (the rest show their username). */
const MAX_AUTHORS = 100;
/** At most this many distinct plots, and this many bytes of their data, are drawn per composition (the rest show their placeholder). */
const MAX_PLOTS = 32;
const MAX_PLOT_DATA = 8 * 1024 * 1024;

/** Where references are resolved from: the resource whose content holds them and its owner. */
export interface VarScope {
  env: Env;
  db: Db;
  owner: User;
  resource: Resource;
}

/** One piece of content and whose rights each of its references resolves with. */
export interface ContentPiece {
  path: CompositionPath;
  text: string;
  /** Everyone whose rights the reference `as` (as the write check names it) resolves with. */
  principals: (as: string) => readonly number[];
}

/** A plot a vis block shows: its id (its PNGs live under it), its name and its entries. */
export interface ResolvedPlot {
  id: number;
  name: string;
  values: Map<string, string>;
}

export interface ResolvedContent {
  vars: Map<string, VarView>;
  colors: Map<string, string>;
  profiles: Map<string, AuthorProfile>;
  /** Documents of attachment blocks that every piece naming them may read: their ids by `user/doc`. */
  attachments: Map<string, number>;
  /** Plots of vis blocks that every piece naming them may read: their entries, by the reference as written. */
  plots: Map<string, ResolvedPlot>;
  /** How many vis blocks name each plot, over all pieces (a drawing's weight counts that often). */
  plotUses: Map<string, number>;
  /** What was left out, one line each (`<reference>: ...`), for a send's log. */
  refused: string[];
  /** The composition's weight with its references filled in (markup/composed-size.ts). */
  bytes: number;
}

const varAs = (user: string, doc: string, name: string) => `{/u/${user}/d/${doc}/v/${name}}`;
const attachmentAs = (user: string, doc: string) => `attachment /u/${user}/d/${doc}`;
const authorAs = (user: string) => `author ${user}`;

/** The id of `user`'s document `doc`, as SQL. */
const docId = (user: string, doc: string) =>
  sql`(select ${resources.id} from ${resources} where ${resources.owner_id} = (select ${users.id} from ${users} where ${users.username} = ${user}) and ${resources.kind} = ${docKind.kind} and ${resources.name} = ${doc})`;

export async function resolveContent(
  scope: VarScope,
  pieces: readonly ContentPiece[],
  own: DocVar[] = [],
): Promise<ResolvedContent> {
  const { env, db, owner: me, resource: self } = scope;
  const isSelf = (user: string, doc: string) => self.kind === docKind.kind && user === me.username && doc === self.name;
  const parsed: ContentRefs[] = pieces.map((p) => contentRefs(p.text));
  const uses: (Use & { key: string })[] = [];
  const docs = new Map<string, { user: string; doc: string }>();
  const authors = new Set<string>();
  const plotRefs = new Set<string>();
  pieces.forEach((piece, i) => {
    const use = (key: string, as: string, ref: Use['ref']) =>
      uses.push({ key, path: piece.path, principals: piece.principals(as), ref });
    const doc = (user: string, name: string, as: string) =>
      ({ kind: 'resource', resource: 'doc', owner: user, name, as }) as const;
    for (const v of parsed[i]!.vars) {
      if (isSelf(v.user, v.doc)) continue;
      docs.set(`${v.user}/${v.doc}`, { user: v.user, doc: v.doc });
      const as = varAs(v.user, v.doc, v.name);
      use(`v:${v.key}`, as, doc(v.user, v.doc, as));
    }
    for (const a of parsed[i]!.attachments) {
      const as = attachmentAs(a.user, a.doc);
      use(`a:${a.user}/${a.doc}`, as, doc(a.user, a.doc, as));
    }
    for (const p of parsed[i]!.plots) {
      if (!plotRefs.has(p) && plotRefs.size >= MAX_PLOTS) continue;
      plotRefs.add(p);
      use(`pl:${p}`, `vis ${p}`, plotReference(p, 'vis '));
    }
    for (const user of parsed[i]!.authors) {
      if (!authors.has(user) && authors.size >= MAX_AUTHORS) continue;
      authors.add(user);
      use(`p:${user}`, authorAs(user), { kind: 'profile', user, as: authorAs(user) });
    }
  });
  const docList = [...docs.values()];
  const plotList = [...plotRefs];
  const { verdicts, also } = await composedReads(db, uses, [
    ...docList.map((d) => entriesQuery(db, docId(d.user, d.doc), 'vars/')),
    ...(authors.size ? [profilesQuery(db, [...authors])] : []),
    ...plotList.map((p) => entriesQuery(db, plotIdSql(p))),
  ]);
  // A key resolves when every use of it (in every piece) may.
  const refusedKeys = new Set<string>();
  const refused: string[] = [];
  uses.forEach((u, i) => {
    if (verdicts[i]!.ok || refusedKeys.has(u.key)) return;
    refusedKeys.add(u.key);
    refused.push(`${u.ref.as}: not readable by everyone whose content names it; left out`);
  });
  const granted = (key: string) => uses.some((u) => u.key === key) && !refusedKeys.has(key);

  const byDoc = new Map<string, DocVar[]>(
    await Promise.all(
      docList.map(
        async (d, i) =>
          [`${d.user}/${d.doc}`, varsFromEntries(await entryValues(env, also[i] as StoredEntry[]))] as const,
      ),
    ),
  );
  const vars = new Map<string, VarView>();
  const colors = new Map<string, string>();
  const colorClass = new Map<string, string>();
  for (const refs of parsed)
    for (const ref of refs.vars) {
      const mine = isSelf(ref.user, ref.doc);
      if (!mine && !granted(`v:${ref.key}`)) continue;
      const v = (mine ? own : byDoc.get(`${ref.user}/${ref.doc}`))?.find((x) => x.name === ref.name);
      if (!v) continue;
      const f = formatVar(v);
      let cls: string | undefined;
      if (f.color) {
        cls = colorClass.get(f.color);
        if (!cls) {
          cls = `var-c${colorClass.size}`;
          colorClass.set(f.color, cls);
          colors.set(cls, f.color);
        }
      }
      vars.set(ref.key, { text: f.text, band: f.band, about: v.about || undefined, colorClass: cls });
    }

  const profiles = new Map<string, AuthorProfile>();
  for (const row of (authors.size ? also[docList.length] : []) as ProfileRow[])
    if (granted(`p:${row.username}`)) profiles.set(row.username, profileOf(row));

  const attachments = new Map<string, number>();
  uses.forEach((u, i) => {
    const v = verdicts[i]!;
    if (u.key.startsWith('a:') && granted(u.key) && v.ok && v.id !== null) attachments.set(u.key.slice(2), v.id);
  });

  const plots = new Map<string, ResolvedPlot>();
  const plotIds = new Map(
    uses.flatMap((u, i) => (u.key.startsWith('pl:') && verdicts[i]!.ok ? [[u.key, verdicts[i]!]] : [])),
  );
  const plotsAt = docList.length + (authors.size ? 1 : 0);
  let plotBytes = 0;
  for (const [i, p] of plotList.entries()) {
    if (!granted(`pl:${p}`)) continue;
    const rows = also[plotsAt + i] as StoredEntry[];
    plotBytes += rows.reduce((n, r) => n + r.size, 0);
    if (plotBytes > MAX_PLOT_DATA) {
      refused.push(
        `vis ${p}: not drawn, past the ${MAX_PLOT_DATA / 1024 / 1024} MiB of plot data one composition reads`,
      );
      continue;
    }
    const r = plotReference(p);
    const v = plotIds.get(`pl:${p}`);
    if (!v?.ok || v.id === null) continue;
    plots.set(p, { id: v.id, name: r.shortname ?? r.name, values: await entryValues(env, rows) });
  }

  const plotUses = new Map<string, number>();
  for (const refs of parsed) for (const [p, n] of refs.uses.plots) plotUses.set(p, (plotUses.get(p) ?? 0) + n);
  const bytes = pieces.reduce((n, p, i) => n + composedBytes(p.text, parsed[i]!.uses, vars, profiles), 0);
  return { vars, colors, profiles, attachments, plots, plotUses, refused, bytes };
}
