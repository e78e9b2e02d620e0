/**
 * Mail templates: `config/template` names a document (`/u/<user>/d/<doc>`, or `<doc>` for a
 * document of the mail's owner) whose content wraps the mail's content at its
 * `{{ content }}` placeholder, before the mail is composed, so an organisation keeps one
 * header and footer for all its mails. A write names a document that exists and the writer
 * may read (400 otherwise); a send reads it with the owner's rights, and one that has since
 * gone or become unreadable leaves the content unwrapped (the send logs why).
 */
import { and, eq } from 'drizzle-orm';
import type { Db } from '../core/context';
import { entryQuery, entryValue } from '../core/entries';
import { RESOURCE_NAME, USERNAME } from '../core/names';
import { accessTo } from '../core/perms';
import type { Reference, ResourceCtx } from '../core/resource';
import { resources, users, type User } from '../db/schema';
import { contentReferences } from '../docs/references';

/** The placeholder the mail's content replaces (every occurrence; spaces inside the braces are optional). */
const PLACEHOLDER = /\{\{\s*content\s*\}\}/g;
const HAS_PLACEHOLDER = /\{\{\s*content\s*\}\}/;

export interface TemplateRef {
  user: string;
  doc: string;
}

/** The document a `config/template` value names (null: none), or a message when it names none. */
export function parseTemplate(value: string, owner: string): TemplateRef | null | string {
  const v = value.trim();
  if (!v) return null;
  const m = /^\/u\/([^/]+)\/d\/([^/]+)$/.exec(v);
  const [user, doc] = m ? [m[1]!, m[2]!] : [owner, v];
  if (!USERNAME.test(user) || !RESOURCE_NAME.test(doc))
    return `expected /u/<user>/d/<doc> or a document name, got ${v}`;
  return { user, doc };
}

const refText = (t: TemplateRef) => `/u/${t.user}/d/${t.doc}`;

/** The template's content as `reader` may read it, or null when it does not exist or is not readable. */
async function readTemplate(env: Env, db: Db, reader: User | null, t: TemplateRef): Promise<string | null> {
  const row = await db
    .select({ resource: resources })
    .from(resources)
    .innerJoin(users, eq(users.id, resources.owner_id))
    .where(and(eq(users.username, t.user), eq(resources.kind, 'doc'), eq(resources.name, t.doc)))
    .get();
  if (!row || !(await accessTo(db, reader, row.resource)).r) return null;
  return (await entryValue(env, await entryQuery(db, row.resource.id, 'content').get())) ?? '';
}

/** `config/template`'s validation: a document that exists and the writer may read. */
export async function templateProblem(value: string, rc: ResourceCtx): Promise<string | void> {
  const t = parseTemplate(value, rc.owner.username);
  if (t === null) return;
  if (typeof t === 'string') return t;
  if ((await readTemplate(rc.env, rc.db, rc.caller, t)) === null)
    return `no document ${refText(t)} readable by ${rc.caller?.username ?? 'an anonymous caller'}`;
}

/**
 * What the template makes the owner's render read, for a writer other than the owner
 * (core/resource/references.ts): the template itself and the references of its content.
 */
export async function templateReferences(value: string, rc: ResourceCtx): Promise<Reference[]> {
  const t = parseTemplate(value, rc.owner.username);
  if (t === null || typeof t === 'string') return [];
  const self: Reference = {
    kind: 'resource',
    resource: 'doc',
    owner: t.user,
    name: t.doc,
    as: `template ${refText(t)}`,
  };
  const content = await readTemplate(rc.env, rc.db, rc.caller, t);
  const inner = contentReferences(content ?? '', rc.owner).map((r) => ({ ...r, as: `${r.as} (in the template)` }));
  return [self, ...inner];
}

/** The mail's entries with the content wrapped by its template, read with the owner's rights; `problem` when it could not be. */
export async function withTemplate(
  scope: { env: Env; db: Db; owner: User },
  values: Map<string, string>,
): Promise<{ values: Map<string, string>; problem?: string }> {
  const t = parseTemplate(values.get('config/template') ?? '', scope.owner.username);
  if (t === null) return { values };
  if (typeof t === 'string') return { values, problem: `template: ${t}` };
  const template = await readTemplate(scope.env, scope.db, scope.owner, t);
  if (template === null)
    return {
      values,
      problem: `template ${refText(t)}: no such document readable by the mail's owner; sent without it`,
    };
  const content = values.get('content') ?? '';
  // A function replacement: `$&` and the like in the content stay as written.
  const wrapped = HAS_PLACEHOLDER.test(template)
    ? template.replace(PLACEHOLDER, () => content)
    : `${template}\n\n${content}`;
  return { values: new Map(values).set('content', wrapped) };
}
