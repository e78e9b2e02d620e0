/**
 * Mail templates: `config/template` names a document (`/u/<user>/d/<doc>`, or `<doc>` for a
 * document of the mail's owner) whose content wraps the mail's content at its first
 * `{{ content }}` placeholder (further ones are dropped: the content is placed once), before
 * the mail is composed, so an organisation keeps one header and footer for all its mails.
 * A write names a document that exists and the writer may read (400 otherwise). Every
 * render and send reads it again (composition path `mail.template`) with the rights of the
 * mail's owner and of whoever wrote config/template; what the template's content names
 * resolves (`mail.template-content`) with those rights and the template owner's and its
 * content writer's too, so a template's author never reads the mail owner's data through
 * it. One that has since gone or become unreadable leaves the content unwrapped (the send
 * logs why).
 */
import { sql } from 'drizzle-orm';
import type { Db } from '../core/context';
import { entryQuery, entryValue, lenders, type StoredAuthorship } from '../core/entries';
import { RESOURCE_NAME, USERNAME } from '../core/names';
import {
  composedReads,
  principalsWith,
  type CompositionPath,
  type Reference,
  type ResourceCtx,
} from '../core/resource';
import { resources, users, type User } from '../db/schema';
import { contentReferences } from '../docs/references';

/** The placeholder the mail's content replaces (spaces inside the braces are optional). */
const PLACEHOLDER = /\{\{\s*content\s*\}\}/g;

interface TemplateRef {
  user: string;
  doc: string;
}

/** The document a `config/template` value names (null: none), or a message when it names none. */
function parseTemplate(value: string, owner: string): TemplateRef | null | string {
  const v = value.trim();
  if (!v) return null;
  const m = /^\/u\/([^/]+)\/d\/([^/]+)$/.exec(v);
  const [user, doc] = m ? [m[1]!, m[2]!] : [owner, v];
  if (!USERNAME.test(user) || !RESOURCE_NAME.test(doc))
    return `expected /u/<user>/d/<doc> or a document name, got ${v}`;
  return { user, doc };
}

const refText = (t: TemplateRef) => `/u/${t.user}/d/${t.doc}`;
/** How the write check names the template (references.ts): its vouched key too. */
const templateAs = (t: TemplateRef) => `template ${refText(t)}`;

/**
 * The template's content with its authorship when every one of `principals` may read it
 * (one D1 round trip, through the composition check), else null.
 */
async function readTemplate(
  env: Env,
  db: Db,
  path: CompositionPath,
  principals: readonly number[],
  t: TemplateRef,
): Promise<{ text: string; ownerId: number; authorship: StoredAuthorship | undefined } | null> {
  const ref: Reference = { kind: 'resource', resource: 'doc', owner: t.user, name: t.doc, as: templateAs(t) };
  const { verdicts, also } = await composedReads(
    db,
    [{ path, principals, ref }],
    [
      entryQuery(
        db,
        sql`(select ${resources.id} from ${resources} where ${resources.kind} = 'doc' and ${resources.name} = ${t.doc} and ${resources.owner_id} = (select ${users.id} from ${users} where ${users.username} = ${t.user}))`,
        'content',
      ),
    ],
  );
  const verdict = verdicts[0]!;
  if (!verdict.ok) return null;
  const row = also[0]![0] as ({ value: string | null; blob_key: string | null } & StoredAuthorship) | undefined;
  return { text: (await entryValue(env, row)) ?? '', ownerId: verdict.ownerId!, authorship: row };
}

/** `config/template`'s validation: a document that exists and the writer may read. */
export async function templateProblem(value: string, rc: ResourceCtx): Promise<string | void> {
  const t = parseTemplate(value, rc.owner.username);
  if (t === null) return;
  if (typeof t === 'string') return t;
  const writer = rc.caller?.id;
  if (writer === undefined || (await readTemplate(rc.env, rc.db, 'mail.template', [writer], t)) === null)
    return `no document ${refText(t)} readable by ${rc.caller?.username ?? 'an anonymous caller'}`;
}

/**
 * What the template makes the mail's render read, for a writer other than the owner
 * (core/resource/references.ts): the template itself and the references of its content.
 */
export async function templateReferences(value: string, rc: ResourceCtx): Promise<Reference[]> {
  const t = parseTemplate(value, rc.owner.username);
  if (t === null || typeof t === 'string' || !rc.caller) return [];
  const self: Reference = { kind: 'resource', resource: 'doc', owner: t.user, name: t.doc, as: templateAs(t) };
  const template = await readTemplate(rc.env, rc.db, 'mail.template', [rc.caller.id], t);
  const inner = contentReferences(template?.text ?? '', rc.owner).map((r) => ({
    ...r,
    as: `${r.as} (in the template)`,
  }));
  return [self, ...inner];
}

/** A template read for a composition: its content and whose rights each of its references resolves with. */
export interface Template {
  text: string;
  principals: (as: string) => number[];
}

/**
 * The template a mail's entries name, read now with the rights of the mail's owner and of
 * config/template's writer (`lent`: further principals a send adds); `problem` when there
 * is one it could not use.
 */
export async function templateOf(
  scope: { env: Env; db: Db; owner: User },
  values: Map<string, string>,
  authorship: ReadonlyMap<string, StoredAuthorship>,
  lent: readonly number[] = [],
): Promise<{ template?: Template; problem?: string }> {
  const t = parseTemplate(values.get('config/template') ?? '', scope.owner.username);
  if (t === null) return {};
  if (typeof t === 'string') return { problem: `template: ${t}` };
  const chosenBy = [
    scope.owner.id,
    ...lent,
    ...lenders(authorship.get('config/template'), scope.owner.id)(templateAs(t)),
  ];
  const read = await readTemplate(scope.env, scope.db, 'mail.template', [...new Set(chosenBy)], t);
  if (!read)
    return {
      problem: `template ${refText(t)}: no such document readable by the mail's owner and whoever chose the template; sent without it`,
    };
  return {
    template: {
      text: read.text,
      principals: principalsWith([...chosenBy, read.ownerId], lenders(read.authorship, read.ownerId)),
    },
  };
}

/** The content placed in the template at its first placeholder (the others dropped), or after it without one. */
export function placeInTemplate(template: string, content: string): string {
  let placed = false;
  // A function replacement: `$&` and the like in the content stay as written.
  const wrapped = template.replace(PLACEHOLDER, () => (placed ? '' : ((placed = true), content)));
  return placed ? wrapped : `${template}\n\n${content}`;
}
