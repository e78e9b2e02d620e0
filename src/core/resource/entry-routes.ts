/** A text entry of a resource (and its aliases): GET reads it, POST writes it, DELETE clears it. */
import type { SQL } from 'drizzle-orm';
import * as z from 'zod';
import type { Ctx } from '../context';
import { clearEntry, entryQuery, entryValue, readEntry, writeEntry, type Authorship } from '../entries';
import { badRequest } from '../errors';
import { text } from '../examples';
import { DEFAULT_BODY_LIMIT, noContent, readText, textResponse } from '../http';
import { logInsert } from '../log';
import type { EntrySpec, ResourceCtx, ResourceKind, ResourceRoutes } from './kind';
import { resourceEventOf } from './events';
import { eventWrite } from '../events';
import { logEvent } from './log-routes';
import { checkReferences } from './references';

export function entryRoutes(routes: ResourceRoutes, kind: ResourceKind, spec: EntrySpec): void {
  // The body of the GET and the POST: text, with the entry's example (none: the document's test names the entry).
  const example = spec.example ?? (spec.default || undefined);
  const schema = () => (example === undefined ? z.string() : text(example));
  for (const path of [spec.path, ...(spec.aliases ?? [])]) {
    const rel = `/${path}`;
    if (spec.access !== 'w') {
      routes.get(rel, {
        summary: spec.summary ?? `Read ${spec.path}`,
        need: 'r',
        // A stored entry is read with the resource: one D1 round trip.
        ...(spec.compute ? {} : { preload: { rows: (ctx: Ctx, id: SQL) => entryQuery(ctx.db, id, spec.path) } }),
        responses: { 200: { description: 'The value, exactly as written', type: 'text/plain', schema } },
        handler: async (rc) => {
          const stored = () =>
            rc.preloaded?.rows
              ? entryValue(rc.env, rc.preloaded.rows[0] as Parameters<typeof entryValue>[1])
              : readEntry(rc.env, rc.db, rc.resource.id, spec.path);
          const value = spec.compute ? await spec.compute(rc) : ((await stored()) ?? spec.default ?? '');
          return textResponse(value);
        },
      });
    }
    if (spec.access === 'r') continue;
    routes.post(rel, {
      summary: spec.summary ?? `Write ${spec.path}`,
      need: 'w',
      ...(spec.writePreload ? { preload: spec.writePreload } : {}),
      body: { type: 'text/plain', schema },
      responses: {
        204: { description: 'Written' },
        400: { description: 'Invalid value, or a reference the writer may not read' },
        413: { description: 'Too large' },
        415: { description: 'Not text/plain' },
      },
      handler: async (rc) => {
        const limit = spec.limit ?? DEFAULT_BODY_LIMIT;
        const value = await readText(rc.req, limit, `${spec.path} is limited to ${limit} bytes`);
        const problem = await spec.validate?.(value, rc);
        if (problem) throw badRequest(`invalid ${spec.path}: ${problem}`);
        const authorship = await checkReferences(rc, spec, value);
        await storeEntry(
          rc,
          kind,
          spec,
          value,
          `${spec.path} written (${new TextEncoder().encode(value).byteLength} bytes)`,
          authorship,
        );
        return noContent();
      },
    });
    routes.delete(rel, {
      summary: `Clear ${spec.path}`,
      need: 'w',
      ...(spec.writePreload ? { preload: spec.writePreload } : {}),
      responses: { 204: { description: 'Cleared' } },
      handler: async (rc) => {
        await storeEntry(rc, kind, spec, null, `${spec.path} cleared`);
        return noContent();
      },
    });
  }
}

/** Writes (or, value null, clears) the entry with its derived statements, hooks and log line `message`. */
async function storeEntry(
  rc: ResourceCtx,
  kind: ResourceKind,
  spec: EntrySpec,
  value: string | null,
  message: string,
  authorship: Authorship = { by: rc.caller?.id ?? null },
): Promise<void> {
  // Without an afterWrite hook (whose own log lines come first), the log line joins the write's batch.
  const logged = kind.log && (!spec.afterWrite || !!spec.writeStatements);
  const lines = [...(spec.logLines?.(rc, value) ?? []), ...(logged ? [message] : [])];
  const derived = await spec.writeStatements?.(rc, value);
  // The document.updated (grid., mail.) event is recorded in the write's own batch.
  const event = resourceEventOf(rc.env, kind, rc.owner, rc.resource, 'updated', { entry: spec.path });
  const recording = event ? eventWrite(rc.env, rc.db, rc.exec, event) : null;
  const statements = [
    ...(derived?.statements ?? []),
    ...lines.map((m) => logInsert(rc.db, rc.resource.id, m)),
    ...(recording?.statements ?? []),
  ];
  const results =
    value === null
      ? await clearEntry(rc.env, rc.db, rc.resource, spec.path, statements)
      : await writeEntry(rc.env, rc.db, rc.resource, spec.path, value, authorship, statements);
  recording?.recorded(results);
  await derived?.after?.();
  await spec.afterWrite?.(rc, value);
  if (!logged) await logEvent(rc, message);
}
