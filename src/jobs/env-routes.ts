/** `<job>/config/env/`: the job's env values, write-only (their names are listed, their values never read back). */
import { and, eq, like } from 'drizzle-orm';
import { clearEntry, writeEntry } from '../core/entries';
import { conflict, forbidden } from '../core/errors';
import { text } from '../core/examples';
import { KiB, noContent, readText } from '../core/http';
import { listingResponse, listingResponses } from '../core/listing';
import { checkName } from '../core/names';
import { listingItem, type ResourceCtx, type ResourceRoutes } from '../core/resource';
import { entries } from '../db/schema';

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
const MAX_ENV = 64;

/** The stored env entries of a job (paths and times, never values). */
function envEntries(rc: ResourceCtx) {
  return rc.db
    .select({ path: entries.path, created_on: entries.created_on, last_modified: entries.last_modified })
    .from(entries)
    .where(and(eq(entries.resource_id, rc.resource.id), like(entries.path, 'config/env/%')));
}

export function envRoutes(r: ResourceRoutes): void {
  r.get('/config/env', {
    summary: 'Names of the env values (never the values)',
    need: 'r',
    responses: listingResponses,
    handler: async (rc) => {
      const rows = await envEntries(rc);
      const actions = rc.access.w ? (['POST', 'DELETE'] as const) : ([] as const);
      return listingResponse(
        rc.url,
        rows.map((e) =>
          listingItem(
            rc,
            e.path.slice(11),
            `${rc.base}/${e.path}`,
            'file',
            [...actions],
            e.created_on,
            e.last_modified,
          ),
        ),
      );
    },
  });
  r.get('/config/env/:name', {
    summary: 'Env values are write-only (403)',
    need: 'r',
    responses: { 403: { description: 'Write-only' } },
    handler: async () => {
      throw forbidden('env values are write-only: GET config/env lists their names');
    },
  });
  r.post('/config/env/:name', {
    summary: 'Set an env value (text/plain; write-only)',
    need: 'w',
    body: { type: 'text/plain', schema: () => text('f3a9c2e17b6d4e0852c1') },
    responses: { 204: { description: 'Set' } },
    handler: async (rc) => {
      const name = checkName(rc.params.name!, ENV_NAME, 'env name');
      const value = await readText(rc.req, 64 * KiB);
      const path = `config/env/${name}`;
      const count = await envEntries(rc);
      if (count.length >= MAX_ENV && !count.some((c) => c.path === path))
        throw conflict(`a job has at most ${MAX_ENV} env values`);
      await writeEntry(rc.env, rc.db, rc.resource, path, value, rc.caller!.id);
      return noContent();
    },
  });
  r.delete('/config/env/:name', {
    summary: 'Remove an env value',
    need: 'w',
    responses: { 204: { description: 'Removed' } },
    handler: async (rc) => {
      await clearEntry(rc.env, rc.db, rc.resource, `config/env/${rc.params.name!}`);
      return noContent();
    },
  });
}
