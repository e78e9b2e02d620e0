/**
 * The read-only alias /v1/u/:user/d: the user's documents visible to the caller, a
 * document's info envelope, and its variables. Public documents need no token; a
 * document the caller may not read answers 404. (Rendering adds /pdf and /pptx.)
 */
import { and, asc, eq } from 'drizzle-orm';
import * as z from 'zod';
import { resources } from '../db/schema';
import { text } from '../core/examples';
import type { Api } from '../core/api';
import type { Ctx } from '../core/context';
import { readEntries } from '../core/entries';
import { notFound } from '../core/errors';
import { jsonResponse, textResponse } from '../core/http';
import { type ListingItem, listingResponse, listingResponses } from '../core/listing';
import { findUser, loadResource, visibleResources, type Preload, type ResourceCtx } from '../core/resource';
import { effectiveTheme } from '../markup/page';
import { docKind } from './kind';
import { checkVarName } from './var-routes';
import { ansiVar, formatVar, readVars, type DocVar } from './vars';
import { once } from '../core/once';

const TAG = 'u (alias)';
const BASE = '/v1/u/:user/d';

/** A variable of the example document: the examples of the variable routes are what it formats to. */
const EXAMPLE_VAR: DocVar = {
  name: 'revenue',
  value: '131200',
  type: 'number',
  format: ',.0f',
  about: 'Revenue in September, in euros',
  threshold: '120000',
};

const envelopeSchema = once(() =>
  z
    .object({
      name: z.string(),
      doc: z.string(),
      description: z.string(),
      summary: z.string(),
      shortname: z.string(),
      url: z.string(),
      type: z.string(),
      theme: z.string(),
      owner: z.string(),
      created_on: z.string(),
      last_modified: z.string(),
    })
    .meta({
      id: 'DocumentInfo',
      description: "A document's info envelope: its names, url, type and theme, owner and times",
      example: {
        name: 'Q3 report',
        doc: 'q3_report',
        description: 'Quarterly sales report for the board: revenue, margins and regional trends.',
        summary: 'Sales by region, third quarter',
        shortname: 'k3x9q2vd',
        url: 'https://platform.example/u/alice/d/q3_report',
        type: 'doc',
        theme: 'default',
        owner: 'alice',
        created_on: '2025-09-30T08:12:44.120Z',
        last_modified: '2025-10-02T16:03:10.507Z',
      },
    }),
);

const varSchema = once(() =>
  z
    .object({
      name: z.string(),
      value: z.string(),
      type: z.string(),
      format: z.string(),
      about: z.string(),
      threshold: z.string(),
      text: z.string(),
      band: z.enum(['up', 'down', 'none']),
      color: z.string(),
    })
    .meta({
      id: 'Variable',
      description: 'A variable of a document: what is stored of it and its formatted value',
      example: varObject(EXAMPLE_VAR),
    }),
);

/** The document an alias path names, loaded with the caller's access (404 when unreadable). */
export function loadAliased(ctx: Ctx, preload?: Preload): Promise<ResourceCtx> {
  return loadResource(
    { ...ctx, params: { ...ctx.params, owner: ctx.params.user! } },
    docKind,
    ctx.params.doc!,
    preload,
  );
}

/** Pure: the JSON object of one variable (stored attributes plus its formatted value). */
function varObject(v: DocVar) {
  return { ...v, ...formatVar(v) };
}

async function aliasVar(ctx: Ctx): Promise<DocVar> {
  const rc = await loadAliased(ctx);
  const name = checkVarName(ctx.params.var!);
  const v = (await readVars(rc.env, rc.db, rc.resource.id)).find((x) => x.name === name);
  if (!v) throw notFound(`no such variable: ${name}`);
  return v;
}

export function aliasRoutes(api: Api): void {
  api.get(BASE, {
    summary: "List a user's documents visible to the caller (public ones need no token)",
    tag: TAG,
    auth: 'optional',
    edge: 'cache',
    responses: listingResponses,
    handler: async (ctx) => {
      const owner = await findUser(ctx, ctx.params.user!);
      if (!owner) throw notFound(`no such user: ${ctx.params.user}`);
      const rows =
        ctx.caller?.id === owner.id
          ? await ctx.db
              .select()
              .from(resources)
              .where(and(eq(resources.owner_id, owner.id), eq(resources.kind, 'doc')))
              .orderBy(asc(resources.name))
          : await visibleResources(ctx, docKind, owner.id);
      const items: ListingItem[] = rows.map((r) => ({
        name: r.name,
        uri: `/v1/u/${owner.username}/d/${r.name}`,
        type: 'dir',
        permissions: ['r'],
        actions: ['GET'],
        created_on: r.created_on,
        last_modified: r.last_modified,
      }));
      return listingResponse(ctx.url, items);
    },
  });

  api.get(`${BASE}/:doc`, {
    summary: "A document's info envelope",
    tag: TAG,
    auth: 'optional',
    edge: 'cache',
    responses: { 200: { description: 'Info envelope', type: 'application/json', schema: envelopeSchema } },
    handler: async (ctx) => {
      const rc = await loadAliased(ctx);
      const e = await readEntries(rc.env, rc.db, rc.resource.id);
      const get = (path: string, fallback = '') => e.get(path) ?? fallback;
      return jsonResponse({
        name: get('name') || rc.resource.name,
        doc: rc.resource.name,
        description: get('description'),
        summary: get('summary'),
        shortname: rc.resource.shortname,
        url: docKind.url!(rc.env, rc.owner.username, rc.resource.name),
        type: get('config/type', 'doc'),
        theme: effectiveTheme(get('config/theme'), get('content')),
        owner: rc.owner.username,
        created_on: rc.resource.created_on,
        last_modified: rc.resource.last_modified,
      } satisfies z.infer<ReturnType<typeof envelopeSchema>>);
    },
  });

  for (const render of ['img', 'txt', 'ansi']) {
    api.get(`${BASE}/:doc/${render}`, {
      summary: `The ${render} render: documents have none (404)`,
      tag: TAG,
      auth: 'optional',
      edge: 'cache',
      responses: { 404: { description: `Documents have no ${render} render` } },
      handler: async (ctx) => {
        await loadAliased(ctx);
        throw notFound(`documents have no ${render} render: use /pdf or /pptx`);
      },
    });
  }

  api.get(`${BASE}/:doc/v`, {
    summary: "A document's variables with their formatted values",
    tag: TAG,
    auth: 'optional',
    edge: 'cache',
    responses: { 200: { description: 'Variables', type: 'application/json', schema: () => z.array(varSchema()) } },
    handler: async (ctx) => {
      const rc = await loadAliased(ctx);
      return jsonResponse((await readVars(rc.env, rc.db, rc.resource.id)).map(varObject));
    },
  });
  api.get(`${BASE}/:doc/v/:var`, {
    summary: 'One variable with its formatted value',
    tag: TAG,
    auth: 'optional',
    edge: 'cache',
    responses: { 200: { description: 'Variable', type: 'application/json', schema: varSchema } },
    handler: async (ctx) => jsonResponse(varObject(await aliasVar(ctx))),
  });
  api.get(`${BASE}/:doc/v/:var/txt`, {
    summary: "A variable's formatted value, plain text",
    tag: TAG,
    auth: 'optional',
    edge: 'cache',
    responses: {
      200: { description: 'Formatted value', type: 'text/plain', schema: () => text(formatVar(EXAMPLE_VAR).text) },
    },
    handler: async (ctx) => textResponse(formatVar(await aliasVar(ctx)).text),
  });
  api.get(`${BASE}/:doc/v/:var/ansi`, {
    summary: "A variable's formatted value in the ansi colour of its band",
    tag: TAG,
    auth: 'optional',
    edge: 'cache',
    responses: {
      200: {
        description: 'Formatted value with ansi colours',
        type: 'text/plain',
        schema: () => text(ansiVar(formatVar(EXAMPLE_VAR))),
      },
    },
    handler: async (ctx) => textResponse(ansiVar(formatVar(await aliasVar(ctx)))),
  });
}
