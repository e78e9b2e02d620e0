/**
 * Routes of the grids area: the grid resource (core resourceRoutes: create, list, rename,
 * copy, delete, name, description, layout, mapping, sharing, tags, log), its parsed
 * results under json/, and the rendered dashboard page (html) under the owner's path,
 * the share grantee's path, the public alias /v1/u/:owner/g/:grid/html and the grid's
 * url /u/:owner/g/:grid.
 */
import type { Api } from '../core/api';
import { loadResource, resourceRoutes } from '../core/resource';
import { resourceThreadRoutes } from '../core/resource/thread-routes';
import { gridPage, pagePreload } from './html-routes';
import { jsonRoutes } from './json-routes';
import { gridKind } from './kind';

const pageResponses = { 200: { description: 'HTML page', type: 'text/html' } } as const;

export function gridRoutes(api: Api): void {
  resourceRoutes(api, gridKind, (r) => {
    resourceThreadRoutes(r, 'grid');
    jsonRoutes(r);
    r.get('/html', {
      summary: 'The dashboard drawn as HTML/CSS (each cell sized by its share); anonymous for public grids',
      need: 'r',
      anonymous: true,
      responses: pageResponses,
      preload: pagePreload,
      handler: gridPage,
    });
  });

  api.get('/v1/u/:owner/g/:grid/html', {
    summary: "A grid's dashboard page by its public url (anonymous for publicly shared grids; same access rules otherwise)",
    tag: gridKind.collection,
    auth: 'optional',
    responses: pageResponses,
    handler: async (ctx) => gridPage(await loadResource(ctx, gridKind, undefined, pagePreload)),
  });

  api.get('/u/:owner/g/:grid', {
    summary: "A grid's page at its url: its dashboard (anonymous for publicly shared grids; same access rules otherwise)",
    tag: 'pages',
    auth: 'optional',
    responses: pageResponses,
    handler: async (ctx) => gridPage(await loadResource(ctx, gridKind, undefined, pagePreload)),
  });
}
