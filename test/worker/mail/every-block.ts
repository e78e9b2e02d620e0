/**
 * A mail with every block kind and every markdown element, composed as a send composes it
 * (profiles, origin and web view url given): the fixture of the mail HTML lint, screenshot
 * and bench. Pure (no storage).
 */
import { composeMail, visualImage, type Composed } from '../../../src/mail/compose';
import { EVERY_BLOCK } from './every-block-content';

export { EVERY_BLOCK, MAIL_PNG } from './every-block-content';

/** The cid: name of the vis block's plot, embedded as a PNG as a send embeds it. */
export const VIS_PNG = 'vis-0123456789abcdef.png';

/** The fixture composed with `entries` (config/theme, config/size, ...); `extra` markdown appended. */
export function everyBlockMail(entries: Record<string, string>, extra = ''): Composed {
  return composeMail(
    new Map(Object.entries({ content: `${EVERY_BLOCK}\n\n${extra}`, ...entries })),
    'weekly',
    undefined,
    {
      profiles: new Map([
        ['ann', { username: 'ann', name: 'Ann Example', bio: 'Writes the weekly' }],
        ['bob', { username: 'bob' }],
      ]),
      origin: 'https://example.com',
      viewUrl: 'https://example.com/u/ann/m/weekly',
      // the vis block's plot, as composeStored embeds it
      plots: new Map([['/u/ann/p/sales', visualImage(VIS_PNG, 'Sales', { width: 600, height: 338 })]]),
    },
  );
}
