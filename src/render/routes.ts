/**
 * Routes of the rendering area: a document's files/ (its listing, files/doc.pdf and
 * files/doc.pptx with their aliases /v1/u/:user/d/:doc/pdf|pptx), its canonical page
 * `/u/:user/d/:doc` and its short url `/s/:shortname`; a plot's files/ (plot.svg, plot.png,
 * plot.txt, plot.ansi) and its page `/u/:user/p/:plot`. Same access rules as the resource:
 * public ones need no token; anything the caller may not read is 404.
 *
 * Every path below /v1/vis/docs is also served below /v1/users/:owner/vis/docs (the owner's
 * path, as a share grantee sees it), except PUT (create). Every path below /v1/vis/plots is
 * also served below /v1/users/:owner/vis/plots likewise. docs/ROUTES.md lists each route
 * with the file that declares it.
 */
import type { Api } from '../core/api';
import { resourceRouter } from '../core/resource';
import { docKind } from '../docs/kind';
import { fileRoutes } from './file-routes';
import { outputRoutes } from './output-routes';
import { pageRoutes } from './page-routes';
import { plotKind } from '../plots/kind';
import { plotFileRoutes, plotPageRoute } from './plot-routes';

export function renderRoutes(api: Api): void {
  const files = resourceRouter(api, docKind);
  // GET /v1/vis/docs/:doc/files
  // GET /v1/vis/docs/:doc/files/doc.png
  // GET /v1/vis/docs/:doc/files/doc.txt
  // GET /v1/vis/docs/:doc/files/doc.ansi
  fileRoutes(files);
  // GET /v1/vis/docs/:doc/files/doc.pdf
  // GET /v1/u/:user/d/:doc/pdf
  // GET /v1/vis/docs/:doc/files/doc.pptx
  // GET /v1/u/:user/d/:doc/pptx
  outputRoutes(api, files);
  // GET /u/:user/d/:doc
  // GET /s/:shortname
  pageRoutes(api);
  const plots = resourceRouter(api, plotKind);
  // GET /v1/vis/plots/:plot/files
  // GET /v1/vis/plots/:plot/files/plot.svg
  // GET /v1/vis/plots/:plot/files/plot.png
  // GET /v1/vis/plots/:plot/files/plot.txt
  // GET /v1/vis/plots/:plot/files/plot.ansi
  plotFileRoutes(plots);
  // GET /u/:user/p/:plot
  plotPageRoute(api);
}
