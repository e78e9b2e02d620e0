/**
 * vars/ of a document: PUT vars/<var> creates a variable with its five attributes at their
 * defaults; vars/<var>/<attr> reads (GET), writes (POST text/plain) and resets (DELETE).
 */
import { and, asc, eq, inArray, like, type SQL } from 'drizzle-orm';
import { entries, resources } from '../db/schema';
import { text } from '../core/examples';
import { nowIso } from '../core/clock';
import { writeEntry } from '../core/entries';
import { badRequest, conflict, isUniqueViolation, notFound } from '../core/errors';
import { jsonResponse, noContent, readText, textResponse } from '../core/http';
import { fileActions, type ListingItem, listingItemSchema, listingResponse, listingResponses } from '../core/listing';
import { appendLog, logInsert } from '../core/log';
import type { Ctx, Db } from '../core/context';
import { permList } from '../core/perms';
import { listingItem, type ResourceCtx, type ResourceRoutes } from '../core/resource';
import {
  VAR_ATTRS,
  VAR_DEFAULTS,
  VAR_NAME,
  varAttrProblem,
  varPath,
  varsFromEntries,
  type DocVar,
  type VarAttr,
} from './vars';

/** Largest body accepted for a variable attribute (the attributes themselves are shorter). */
const ATTR_BODY_LIMIT = 4096;

export function checkVarName(name: string): string {
  if (!VAR_NAME.test(name))
    throw badRequest(`invalid variable name '${name}': lowercase letters, digits, - and _, at most 50 characters`);
  return name;
}

function checkAttr(attr: string): VarAttr {
  if (!(VAR_ATTRS as readonly string[]).includes(attr))
    throw notFound(`no such variable attribute: ${attr} (use ${VAR_ATTRS.join(', ')})`);
  return attr as VarAttr;
}

interface StoredVar {
  v: DocVar;
  created_on: string;
  last_modified: string;
}

/**
 * The entry rows of the document's variables (`name` narrows to one); `resourceId` may be SQL naming it (a preload).
 */
function varRowsQuery(db: Db, resourceId: number | SQL, name?: string) {
  return db
    .select({
      path: entries.path,
      value: entries.value,
      created_on: entries.created_on,
      last_modified: entries.last_modified,
    })
    .from(entries)
    .where(
      and(
        eq(entries.resource_id, resourceId),
        name
          ? inArray(
              entries.path,
              VAR_ATTRS.map((a) => varPath(name, a)),
            )
          : like(entries.path, 'vars/%'),
      ),
    )
    .orderBy(asc(entries.path));
}

type VarRow = { path: string; value: string | null; created_on: string; last_modified: string };

/** Variables with their timestamps from the rows of varRowsQuery. */
function storedVarsOf(rows: VarRow[]): Map<string, StoredVar> {
  const values = new Map(rows.map((r) => [r.path, r.value ?? '']));
  const out = new Map<string, StoredVar>();
  for (const v of varsFromEntries(values)) {
    const own = rows.filter((r) => r.path.startsWith(`vars/${v.name}/`));
    out.set(v.name, {
      v,
      created_on: own.reduce((m, r) => (r.created_on < m ? r.created_on : m), own[0]!.created_on),
      last_modified: own.reduce((m, r) => (r.last_modified > m ? r.last_modified : m), own[0]!.last_modified),
    });
  }
  return out;
}

/** Variables of the document with their timestamps (one query; `name` narrows to one). */
async function storedVars(rc: ResourceCtx, name?: string): Promise<Map<string, StoredVar>> {
  return storedVarsOf(await varRowsQuery(rc.db, rc.resource.id, name));
}

/** The variable :var, read with the resource when the route preloads varRows (else one query); 404 when none. */
async function loadVar(rc: ResourceCtx, name: string): Promise<StoredVar> {
  checkVarName(name);
  const rows = rc.preloaded?.rows as VarRow[] | undefined;
  const found = (rows ? storedVarsOf(rows) : await storedVars(rc, name)).get(name);
  if (!found) throw notFound(`no such variable: ${name}`);
  return found;
}

/** The rows of the variable :var, read with the resource (a bad name reads nothing: the handler answers 400). */
const varRows = {
  rows: (ctx: Ctx, id: SQL) => varRowsQuery(ctx.db, id, VAR_NAME.test(ctx.params.var!) ? ctx.params.var! : ''),
};

function varItem(rc: ResourceCtx, s: StoredVar): ListingItem {
  return listingItem(
    rc,
    s.v.name,
    `${rc.base}/vars/${s.v.name}`,
    'dir',
    rc.access.w ? ['GET', 'DELETE'] : ['GET'],
    s.created_on,
    s.last_modified,
  );
}

export function varRoutes(r: ResourceRoutes): void {
  r.get('/vars', {
    summary: "List a document's variables",
    need: 'r',
    responses: listingResponses,
    handler: async (rc) =>
      listingResponse(
        rc.url,
        [...(await storedVars(rc)).values()].map((s) => varItem(rc, s)),
      ),
  });

  r.put('/vars/:var', {
    summary: 'Create a variable (value, type number, format, about, threshold at their defaults)',
    need: 'w',
    responses: {
      201: { description: 'Created', type: 'application/json', schema: listingItemSchema },
      409: { description: 'Already exists' },
    },
    handler: async (rc) => {
      const name = checkVarName(rc.params.var!);
      const now = nowIso();
      const rows = VAR_ATTRS.map((a) => ({
        resource_id: rc.resource.id,
        path: varPath(name, a),
        value: VAR_DEFAULTS[a],
        blob_key: null,
        size: new TextEncoder().encode(VAR_DEFAULTS[a]).byteLength,
        created_on: now,
        last_modified: now,
        written_by: rc.caller!.id,
        vouched: null,
      }));
      try {
        // One statement: the five rows land together or not at all (a racing create gets 409).
        await rc.db.batch([
          rc.db.insert(entries).values(rows),
          rc.db.update(resources).set({ last_modified: now }).where(eq(resources.id, rc.resource.id)),
        ]);
      } catch (err) {
        if (isUniqueViolation(err)) throw conflict(`variable '${name}' already exists`);
        throw err;
      }
      await appendLog(rc.db, rc.resource.id, `variable ${name} created`);
      return jsonResponse(varItem(rc, { v: { name, ...VAR_DEFAULTS }, created_on: now, last_modified: now }), {
        status: 201,
      });
    },
  });

  r.get('/vars/:var', {
    summary: 'List the attributes of a variable',
    need: 'r',
    preload: varRows,
    responses: listingResponses,
    handler: async (rc) => {
      const s = await loadVar(rc, rc.params.var!);
      const actions = fileActions(permList(rc.access));
      return listingResponse(
        rc.url,
        VAR_ATTRS.map((a) =>
          listingItem(rc, a, `${rc.base}/vars/${s.v.name}/${a}`, 'file', actions, s.created_on, s.last_modified),
        ),
      );
    },
  });

  r.delete('/vars/:var', {
    summary: 'Delete a variable',
    need: 'w',
    responses: { 204: { description: 'Deleted' } },
    preload: varRows,
    handler: async (rc) => {
      const name = (await loadVar(rc, rc.params.var!)).v.name;
      // Its rows, last_modified and the log line: one batch.
      await rc.db.batch([
        rc.db.delete(entries).where(
          and(
            eq(entries.resource_id, rc.resource.id),
            inArray(
              entries.path,
              VAR_ATTRS.map((a) => varPath(name, a)),
            ),
          ),
        ),
        rc.db.update(resources).set({ last_modified: nowIso() }).where(eq(resources.id, rc.resource.id)),
        logInsert(rc.db, rc.resource.id, `variable ${name} deleted`),
      ]);
      return noContent();
    },
  });

  r.get('/vars/:var/:attr', {
    summary: 'Read a variable attribute: value, type, format, about or threshold',
    need: 'r',
    preload: varRows,
    responses: {
      200: { description: 'The value, exactly as written', type: 'text/plain', schema: () => text('131200') },
    },
    handler: async (rc) => {
      const attr = checkAttr(rc.params.attr!);
      const s = await loadVar(rc, rc.params.var!);
      return textResponse(s.v[attr]);
    },
  });

  const write = async (rc: ResourceCtx, value: string | null) => {
    const attr = checkAttr(rc.params.attr!);
    const s = await loadVar(rc, rc.params.var!);
    const next = value ?? VAR_DEFAULTS[attr];
    const problem = varAttrProblem(attr, next, s.v);
    if (problem) throw badRequest(`invalid ${attr} of variable ${s.v.name}: ${problem}`);
    // The entry and its log line: one batch.
    const line = logInsert(
      rc.db,
      rc.resource.id,
      value === null ? `variable ${s.v.name}: ${attr} reset` : `variable ${s.v.name}: ${attr} written`,
    );
    await writeEntry(rc.env, rc.db, rc.resource, varPath(s.v.name, attr), next, rc.caller!.id, [line]);
    return noContent();
  };

  r.post('/vars/:var/:attr', {
    summary: 'Write a variable attribute (text/plain)',
    need: 'w',
    body: { type: 'text/plain', schema: () => text('131200') },
    preload: varRows,
    responses: {
      204: { description: 'Written' },
      400: { description: 'Invalid value' },
      415: { description: 'Not text/plain' },
    },
    handler: async (rc) => {
      const value = await readText(
        rc.req,
        ATTR_BODY_LIMIT,
        `variable attributes are limited to ${ATTR_BODY_LIMIT} bytes`,
      );
      return write(rc, value);
    },
  });

  r.delete('/vars/:var/:attr', {
    summary: 'Reset a variable attribute to its default',
    need: 'w',
    preload: varRows,
    responses: { 204: { description: 'Reset' } },
    handler: (rc) => write(rc, null),
  });
}
