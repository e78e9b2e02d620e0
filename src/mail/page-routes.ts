/**
 * The web view of an e-mail at its url, `/u/<user>/m/<mail>` (web-page.ts renders it):
 * the same visibility as the e-mail (public e-mails need no token; anyone else who may
 * not read it: 404), composed as a send composes it (variables and author blocks resolved),
 * as the same HTML document a recipient gets.
 */
import { htmlPage } from '../core/examples';
import type { Api } from '../core/api';
import { sha256Base64 } from '../core/crypto';
import { loadUserPath } from '../core/resource';
import { pageHeaders } from '../markup/strict-page';
import { toBase64 } from '../core/crypto';
import { composeStored } from './compose';
import { embedded } from './delivery';
import { mailKind } from './kind';
import { imageSize } from './image-size';
import { mailPagePolicy, renderMailPage, styleValues } from './web-page';

export function mailPageRoute(api: Api): void {
  api.get('/u/:user/m/:mail', {
    summary: "An e-mail's web view at its url: the message as its recipients see it, without their footer",
    tag: 'pages',
    auth: 'optional',
    edge: 'cache',
    responses: {
      200: {
        description: 'The e-mail as an HTML page',
        type: 'text/html',
        schema: () => htmlPage('October newsletter'),
      },
    },
    handler: async (ctx) => {
      const rc = await loadUserPath(ctx, mailKind, undefined, { entries: true });
      const composed = await composeStored(
        { env: rc.env, db: rc.db, owner: rc.owner, resource: rc.resource },
        rc.preloaded!.entries!,
        rc.preloaded!.authorship!,
      );
      // Only pictures are inlined (img-src data:); other kinds of asset stay unreachable.
      const images = new Map(
        (await embedded(rc.env, rc.resource.id, composed))
          .filter((a) => a.content_type.startsWith('image/'))
          .map((a) => [
            a.filename,
            { url: `data:${a.content_type};base64,${toBase64(a.content)}`, size: imageSize(a.content) },
          ]),
      );
      const hashes = await Promise.all(styleValues(renderMailPage(composed, images)).map((v) => sha256Base64(v)));
      const html = renderMailPage(composed, images, mailPagePolicy(hashes, true));
      return new Response(html, { headers: pageHeaders(mailPagePolicy(hashes)) });
    },
  });
}
