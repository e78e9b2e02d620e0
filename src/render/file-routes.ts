/**
 * The files/ folder of a document: what it lists, and the three renders documents do not
 * have (404 naming the two they do, files/doc.pdf and doc.pptx: output-routes.ts).
 */
import { notFound } from '../core/errors';
import { listingResponse, listingResponses } from '../core/listing';
import { listingItem, type ResourceCtx, type ResourceRoutes } from '../core/resource';

/** What files/ lists: the two rendered outputs, and three renders documents do not have. */
const DOC_FILES = ['doc.ansi', 'doc.pdf', 'doc.png', 'doc.pptx', 'doc.txt'];
const NOT_RENDERED = ['doc.png', 'doc.txt', 'doc.ansi'];

/** The listing of a resource's `files/` folder: `names`, each read with GET, dated as the resource. */
export const filesListing = (rc: ResourceCtx, names: readonly string[]) =>
  listingResponse(
    rc.url,
    names.map((f) =>
      listingItem(rc, f, `${rc.base}/files/${f}`, 'file', ['GET'], rc.resource.created_on, rc.resource.last_modified),
    ),
  );

export function fileRoutes(r: ResourceRoutes): void {
  r.get('/files', {
    summary: 'List the pre-rendered outputs of a document',
    need: 'r',
    responses: listingResponses,
    handler: async (rc) => filesListing(rc, DOC_FILES),
  });
  for (const f of NOT_RENDERED) {
    r.get(`/files/${f}`, {
      summary: `${f}: not rendered for documents (404)`,
      need: 'r',
      responses: { 404: { description: 'Documents are rendered as doc.pdf and doc.pptx only' } },
      handler: async () => {
        throw notFound(`${f} is not rendered for documents: use files/doc.pdf or files/doc.pptx`);
      },
    });
  }
}
