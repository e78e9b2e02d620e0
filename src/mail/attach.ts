/**
 * `attachment` section blocks of a mail: the named documents rendered to PDF (through the
 * render area's cached output, so an unchanged document is not rendered again) and
 * attached. Only documents the mail's owner may read; at most `MAX_DOCUMENTS` per mail.
 * A document that is missing, not readable or fails to render is left out (the body keeps
 * its link) and the reason is returned for the log.
 */
import { exports } from 'cloudflare:workers';
import { and, eq, inArray } from 'drizzle-orm';
import type { Db } from '../core/context';
import type { Attachment } from '../core/mailer';
import { accessTo } from '../core/perms';
import type { ResourceCtx } from '../core/resource';
import { resources, users, type User } from '../db/schema';
import { docKind } from '../docs/kind';
import { cachedOutput, outputHash } from '../render/output-cache';
import type { RenderedMarkdown } from '../markup/markdown';
import { documentPages } from '../render/source';

/** Documents one mail may attach. */
export const MAX_DOCUMENTS = 5;

/** A file name for the attachment: the block's `name`, made safe, ending in `.pdf`. */
export function attachmentName(name: string): string {
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
  mailOwner: User,
  docs: RenderedMarkdown['attachments'],
): Promise<{ attachments: Attachment[]; problems: string[] }> {
  const attachments: Attachment[] = [];
  const problems: string[] = [];
  const wanted = docs.slice(0, MAX_DOCUMENTS);
  if (docs.length > MAX_DOCUMENTS) problems.push(`only the first ${MAX_DOCUMENTS} attachment blocks are attached`);
  if (!wanted.length) return { attachments, problems };
  const owners = await db
    .select()
    .from(users)
    .where(inArray(users.username, [...new Set(wanted.map((d) => d.user))]))
    .all();
  const names = new Set<string>();
  for (const d of wanted) {
    const ref = `/u/${d.user}/d/${d.doc}`;
    const owner = owners.find((u) => u.username === d.user);
    const resource = owner
      ? await db
          .select()
          .from(resources)
          .where(and(eq(resources.owner_id, owner.id), eq(resources.kind, docKind.kind), eq(resources.name, d.doc)))
          .get()
      : undefined;
    const access = resource ? await accessTo(db, mailOwner, resource) : null;
    if (!owner || !resource || !access?.r) {
      problems.push(`attachment ${ref}: no such document readable by the mail's owner; only its link is in the mail`);
      continue;
    }
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
        caller: mailOwner,
        db,
        resource,
        owner,
        access,
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
