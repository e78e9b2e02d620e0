// A render racing a DELETE of its document: a DELETE that lands while the render runs makes
// the render answer 404, never a 500, and nothing of the document is left behind.
import { env } from 'cloudflare:workers';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { dbFor } from '../../../src/core/context';
import { HttpError } from '../../../src/core/errors';
import { loadResource } from '../../../src/core/resource';
import { resourceLog, resources, users } from '../../../src/db/schema';
import { docKind } from '../../../src/docs/kind';
import { cachedOutput, outputHash } from '../../../src/render/output-cache';
import { documentPages } from '../../../src/render/source';
import { call, makeUser, unique, type TestUser } from '../helpers';

async function makeDoc(u: TestUser): Promise<{ name: string; path: string }> {
  const name = unique('rr');
  const path = `/v1/vis/docs/${name}`;
  expect((await call('PUT', path, { token: u.token })).status).toBe(201);
  expect((await call('POST', `${path}/content`, { token: u.token, text: '# Title\n\nSome text.' })).status).toBe(204);
  return { name, path };
}

async function leftovers(id: number): Promise<{ blobs: string[]; logRows: number }> {
  const blobs = (await env.BLOBS.list({ prefix: `r/${id}/` })).objects.map((o) => o.key);
  const logRows = (await dbFor(env).select().from(resourceLog).where(eq(resourceLog.resource_id, id))).length;
  return { blobs, logRows };
}

describe('a render racing a DELETE of its document', () => {
  it('a render whose document is deleted mid-render answers 404 and leaves no output blob and no log row', async () => {
    const u = await makeUser();
    const { name, path } = await makeDoc(u);
    const db = dbFor(env);
    const caller = (await db.select().from(users).where(eq(users.username, u.username)).get())!;
    const req = new Request(`http://platform.test${path}/files/doc.pdf`, {
      headers: { Authorization: `Bearer ${u.token}` },
    });
    const exec = {
      waitUntil: (p: Promise<unknown>) => void p,
      passThroughOnException: () => {},
    } as unknown as ExecutionContext;
    const rc = await loadResource(
      { req, env, exec, url: new URL(req.url), params: { doc: name }, caller, db },
      docKind,
    );
    const pages = await documentPages(rc);
    const hash = await outputHash('doc.pdf', await pages('key'));
    // The DELETE lands while the render runs (after its page is built, before its output is stored).
    const built = pages('inline');
    const deleting = async () => {
      const page = await built;
      const del = await call('DELETE', path, { token: u.token });
      expect(del.status).toBe(204);
      return page;
    };
    const err = await cachedOutput(rc, 'doc.pdf', deleting, hash).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(HttpError);
    expect((err as HttpError).status).toBe(404);
    await new Promise((r) => setTimeout(r, 200)); // the DELETE's blob sweep runs in waitUntil
    expect(await leftovers(rc.resource.id)).toEqual({ blobs: [], logRows: 0 });
  });

  it('GET files/doc.pptx racing DELETE of the document: a DELETE that lands mid-render makes the render answer 404, never a 5xx', async () => {
    const u = await makeUser();
    const { name, path } = await makeDoc(u);
    const id = (await dbFor(env).select().from(resources).where(eq(resources.name, name)).get())!.id;
    // The race forced: the render's output put (the shared R2 binding) waits until the DELETE
    // has answered, so the DELETE lands after the deck is made and before it is stored. The
    // two requests share flags, never a promise: workerd does not resume a request on a
    // promise another request settles.
    const blobs = env.BLOBS as { put: R2Bucket['put'] };
    const put = blobs.put;
    const gate = { atPut: false, deleted: false };
    const until = async (ok: () => boolean) => {
      while (!ok()) await new Promise((r) => setTimeout(r, 10));
    };
    blobs.put = async (key, ...rest) => {
      if (key.includes('/render/doc.pptx/')) {
        gate.atPut = true;
        await until(() => gate.deleted);
      }
      return put.call(env.BLOBS, key, ...rest);
    };
    try {
      let answered = false;
      const render = call('GET', `${path}/files/doc.pptx`, { token: u.token }).finally(() => (answered = true));
      await until(() => gate.atPut || answered);
      expect(answered, 'the render answered before storing its output').toBe(false);
      expect((await call('DELETE', path, { token: u.token })).status).toBe(204);
      gate.deleted = true;
      const res = await render;
      expect(res.status).toBe(404);
      expect(((await res.json()) as { message: string }).message).toContain('was deleted while doc.pptx rendered');
      await new Promise((r) => setTimeout(r, 200)); // the DELETE's blob sweep runs in waitUntil
      expect(await leftovers(id)).toEqual({ blobs: [], logRows: 0 });
    } finally {
      gate.deleted = true; // never leave the render waiting (a failed step above must not hang the run)
      blobs.put = put;
    }
  });
});
