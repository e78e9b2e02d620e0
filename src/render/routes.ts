/**
 * Routes of the rendering area: a document's files/ (its listing, files/doc.pdf and
 * files/doc.pptx with their aliases /v1/u/:user/d/:doc/pdf|pptx), its canonical page
 * `/u/:user/d/:doc` and its short url `/s/:shortname`. Same access rules as the document:
 * public documents need no token; anything the caller may not read is 404.
 */
import type { Api } from '../core/api';
import { resourceRouter } from '../core/resource';
import { docKind } from '../docs/kind';
import { fileRoutes } from './file-routes';
import { outputRoutes } from './output-routes';
import { pageRoutes } from './page-routes';

export function renderRoutes(api: Api): void {
  const files = resourceRouter(api, docKind);
  fileRoutes(files);
  outputRoutes(api, files);
  pageRoutes(api);
}
