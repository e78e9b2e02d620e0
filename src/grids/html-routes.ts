/**
 * The html entry of a grid: its dashboard page, served at the grid's own path and at the
 * public alias /v1/u/:owner/g/:grid/html.
 */
import { sha256Base64 } from '../core/crypto';
import { readEntry } from '../core/entries';
import type { ResourceCtx } from '../core/resource';
import { strictPolicy } from '../markup/strict-page';
import type { GridData, MetaData } from './build';
import { renderGridPage } from './html';
import { readParsed } from './store';

/** A dashboard shows no images and runs no script: its policy says so outright. */
const ALLOW = ["img-src 'none'", "script-src 'none'"];

/** The dashboard page, with a CSP that allows nothing but its own hashed <style>. */
export async function gridPage(rc: ResourceCtx): Promise<Response> {
  const [data, meta, name] = await Promise.all([
    readParsed(rc.env, rc.db, rc.resource.id, 'data'),
    readParsed(rc.env, rc.db, rc.resource.id, 'meta'),
    readEntry(rc.env, rc.db, rc.resource.id, 'name'),
  ]);
  const page = renderGridPage(name || rc.resource.name, JSON.parse(data) as GridData, JSON.parse(meta) as MetaData);
  return new Response(page.html, {
    headers: {
      'Content-Type': 'text/html; charset=utf-8',
      'Content-Security-Policy': strictPolicy(await sha256Base64(page.style), ALLOW),
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
      'Cache-Control': 'private, no-store',
      'X-NVM-Type': 'file',
    },
  });
}
