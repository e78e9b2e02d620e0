/** Folder listings: the one JSON shape every GET on a folder answers. */
import * as z from 'zod';
import { jsonResponse, textResponse, wantsJson } from './http';
import { nextLink, PAGE_MAX, pageItems, pageRequest, type KeyShape, type Page, type PartsPage } from './paging';
import type { Perm } from './perms';
import { once } from './once';

export type EntryType = 'dir' | 'file' | 'link';
export type Verb = 'GET' | 'PUT' | 'POST' | 'PATCH' | 'DELETE';

export interface ListingItem {
  name: string;
  uri: string;
  type: EntryType;
  permissions: Perm[];
  actions: Verb[];
  created_on: string;
  last_modified: string;
}

/** One item of a listing (components/schemas/ListingItem). */
export const listingItemSchema = once(() =>
  z
    .object({
      name: z.string(),
      uri: z.string(),
      type: z.enum(['dir', 'file', 'link']),
      permissions: z.array(z.string()),
      actions: z.array(z.string()),
      created_on: z.string(),
      last_modified: z.string(),
    })
    .meta({
      id: 'ListingItem',
      description:
        'An item of a folder: what it is, where, and what the caller may do with it (permissions r, w, d, x)',
      example: {
        name: 'q3_report',
        uri: '/v1/vis/docs/q3_report',
        type: 'dir',
        permissions: ['r', 'w', 'd'],
        actions: ['GET', 'PATCH', 'DELETE'],
        created_on: '2025-09-30T08:12:44.120Z',
        last_modified: '2025-10-02T16:03:10.507Z',
      },
    }),
);
/** A folder listing (components/schemas/Listing): what every GET on a folder answers. */
export const listingSchema = once(() =>
  z.array(listingItemSchema()).meta({
    id: 'Listing',
    description: 'The items of a folder',
    example: [
      {
        name: 'content',
        uri: '/v1/vis/docs/q3_report/content',
        type: 'file',
        permissions: ['r', 'w'],
        actions: ['GET', 'POST', 'DELETE'],
        created_on: '2025-09-30T08:12:44.120Z',
        last_modified: '2025-10-02T16:03:10.507Z',
      },
      {
        name: 'assets',
        uri: '/v1/vis/docs/q3_report/assets',
        type: 'dir',
        permissions: ['r', 'w', 'd'],
        actions: ['GET', 'POST'],
        created_on: '2025-09-30T08:12:44.120Z',
        last_modified: '2025-10-01T11:47:02.881Z',
      },
    ],
  }),
);

/** The responses of a route that answers a folder listing. */
export const listingResponses = {
  200: { description: 'Folder listing', type: 'application/json', schema: listingSchema },
};

/** The paging query every listing takes (docs/areas/meta.md, "Pages"). */
export const listingQuery = once(() =>
  z.object({
    limit: z
      .string()
      .optional()
      .describe(`At most this many items (up to ${PAGE_MAX}); the Link header names the next page`),
    cursor: z.string().optional().describe('Where the previous page ended: taken from its Link header'),
  }),
);

/** A listing item's paging key: its name, unique within a folder. */
export const byName = (item: { name: string }) => [item.name];
export const BY_NAME: KeyShape = ['string'];

/**
 * A folder listing: the whole folder (paged here, by name), or the page a listing read itself
 * (from the database, in its own order).
 */
export function listingResponse(url: URL, listing: ListingItem[] | Page<ListingItem>, headers?: HeadersInit): Response {
  const { items: answered, next } = Array.isArray(listing)
    ? pageItems(listing, pageRequest(url, BY_NAME), byName)
    : listing;
  const all = new Headers(headers);
  for (const [k, v] of Object.entries(nextLink(url, next))) all.set(k, v);
  return jsonResponse(answered, { nvmType: 'dir', headers: all });
}

/**
 * A page of a file that pages as a listing in two parts (a history: stats/runs): JSON, the items of the first part
 * then those of the second; text, as `text` writes them; the Link header while more remain.
 */
export function partsPageResponse<A, B>(
  req: Request,
  url: URL,
  page: PartsPage<A, B>,
  text: (first: A[], second: B[]) => string,
): Response {
  const headers = nextLink(url, page.next);
  return wantsJson(req)
    ? jsonResponse([...page.first, ...page.second], { nvmType: 'file', headers })
    : textResponse(text(page.first, page.second), { headers });
}

/** A file item's permissions: what its actions let the caller do (GET r, POST/PUT w, DELETE d). */
export function filePerms(actions: Verb[]): Perm[] {
  const out: Perm[] = [];
  if (actions.includes('GET')) out.push('r');
  if (actions.includes('POST') || actions.includes('PUT')) out.push('w');
  if (actions.includes('DELETE')) out.push('d');
  return out;
}

/** Verbs a caller holding `perms` may use on a text file entry of the given access. */
export function fileActions(perms: Perm[], access: 'rw' | 'r' | 'w' = 'rw'): Verb[] {
  const out: Verb[] = [];
  if (perms.includes('r') && access !== 'w') out.push('GET');
  if (perms.includes('w') && access !== 'r') out.push('POST', 'DELETE');
  return out;
}
