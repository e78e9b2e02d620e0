/**
 * `attachment` section blocks of a mail: the named documents rendered to PDF (through the
 * render area's cached output, so an unchanged document is not rendered again) and
 * attached. Only documents everyone whose content names them may read when the mail is
 * sent (the mail's owner, the writers of its content or template: compose.ts decides); at
 * most `MAX_DOCUMENTS` per mail. A document that is missing, not readable or fails to
 * render is left out (the body keeps its link) and the reason is returned for the log.
 */
import { exports } from 'cloudflare:workers';
import { eq, inArray } from 'drizzle-orm';
import type { Db } from '../core/context';
import type { Attachment } from '../core/mailer';
import { OWNER_ACCESS } from '../core/perms';
import type { ResourceCtx } from '../core/resource';
import { resources, users } from '../db/schema';
import { docKind } from '../docs/kind';
import { cachedOutput, outputHash } from '../render/output-cache';
import { documentPages } from '../render/source';
import type { Composed } from './compose';

/** Documents one mail may attach. */
const MAX_DOCUMENTS = 5;

/** A file name for the attachment: the block's `name`, made safe, ending in `.pdf`. */
function attachmentName(name: string): string {
  const base =
    name
      .replace(/\.pdf$/i, '')
      .replace(/[^\p{L}\p{N} ._-]+/gu, '')
      .trim()
      .slice(0, 100) || 'document';
  return `${base}.pdf`;
}

export async function documentAttachments(
  env: Env,
  db: Db,
  composed: Pick<Composed, 'documents' | 'attachable'>,
): Promise<{ attachments: Attachment[]; problems: string[] }> {
  const attachments: Attachment[] = [];
  const problems: string[] = [];
  const docs = composed.documents;
  const wanted = docs.slice(0, MAX_DOCUMENTS);
  if (docs.length > MAX_DOCUMENTS) problems.push(`only the first ${MAX_DOCUMENTS} attachment blocks are attached`);
  if (!wanted.length) return { attachments, problems };
  // Only documents everyone whose content names them may read now (composeStored decided: mail.content,
  // mail.template-content); their rows and owners in one round trip.
  const ids = [...new Set(wanted.flatMap((d) => composed.attachable?.get(`${d.user}/${d.doc}`) ?? []))];
  const rows = ids.length
    ? await db
        .select({ resource: resources, owner: users })
        .from(resources)
        .innerJoin(users, eq(users.id, resources.owner_id))
        .where(inArray(resources.id, ids))
        .all()
    : [];
  const names = new Set<string>();
  for (const d of wanted) {
    const ref = `/u/${d.user}/d/${d.doc}`;
    const id = composed.attachable?.get(`${d.user}/${d.doc}`);
    const row = rows.find((r) => r.resource.id === id);
    if (!row) {
      problems.push(
        `attachment ${ref}: no such document readable by everyone whose content names it; only its link is in the mail`,
      );
      continue;
    }
    const { resource, owner } = row;
    try {
      const url = new URL(`${env.PUBLIC_ORIGIN}${ref}`);
      const rc = {
        req: new Request(url),
        env,
        // Rendered outside any request: nothing handed to waitUntil is waited for.
        exec: {
          waitUntil: () => {},
          passThroughOnException: () => {},
          exports,
          props: undefined,
        } satisfies ExecutionContext,
        url,
        params: {},
        // The document renders as its page does (its own owner's and writers' rights), read by its owner.
        caller: owner,
        db,
        resource,
        owner,
        access: OWNER_ACCESS,
        kind: docKind,
        base: `/v1/users/${owner.username}/vis/docs/${resource.name}`,
      } satisfies ResourceCtx;
      const pages = await documentPages(rc);
      const out = await cachedOutput(
        rc,
        'doc.pdf',
        () => pages('inline'),
        await outputHash('doc.pdf', await pages('key')),
      );
      const content =
        out.bytes instanceof Uint8Array ? out.bytes : new Uint8Array(await new Response(out.bytes).arrayBuffer());
      let filename = attachmentName(d.name);
      for (let n = 2; names.has(filename); n++) filename = attachmentName(`${d.name.replace(/\.pdf$/i, '')}-${n}`);
      names.add(filename);
      attachments.push({ filename, content_type: 'application/pdf', content });
    } catch (err) {
      problems.push(
        `attachment ${ref}: rendering failed (${err instanceof Error ? err.message : String(err)}); only its link is in the mail`,
      );
    }
  }
  return { attachments, problems };
}
