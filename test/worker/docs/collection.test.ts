// The document collection through the real Worker in workerd: create (and concurrent
// creates), list, the folder listing, delete.
import { describe, expect, it, vi } from 'vitest';
import { call, makeUser, unique } from '../helpers';
import { names, newDoc, PNG, upload } from './fixtures';

// Each test walks many requests through the Worker; on a loaded machine 30 s is not enough.
vi.setConfig({ testTimeout: 180_000 });

describe('the document collection', () => {
  it('PUT creates (201), re-PUT answers 409 with a JSON message, a bad name 400', async () => {
    const u = await makeUser();
    const { name, path } = await newDoc(u);
    const again = await call('PUT', path, { token: u.token });
    expect(again.status).toBe(409);
    expect(await again.json()).toMatchObject({ status: 409, message: expect.stringContaining(name) });
    for (const bad of ['Bad', 'a-b', '_x'])
      expect((await call('PUT', `/v1/vis/docs/${bad}`, { token: u.token })).status).toBe(400);
  });
  it('concurrent creates of one name: exactly one 201, the rest 409', async () => {
    const u = await makeUser();
    const name = unique('d');
    const codes = (
      await Promise.all(Array.from({ length: 6 }, () => call('PUT', `/v1/vis/docs/${name}`, { token: u.token })))
    ).map((r) => r.status);
    expect(codes.filter((c) => c === 201)).toHaveLength(1);
    expect(codes.filter((c) => c === 409)).toHaveLength(5);
  });
  it("GET /v1/vis/docs lists the caller's documents only", async () => {
    const u = await makeUser();
    const other = await makeUser();
    const a = await newDoc(u);
    await newDoc(other);
    const res = await call('GET', '/v1/vis/docs', { token: u.token });
    expect(res.headers.get('X-NVM-Type')).toBe('dir');
    const list = (await res.json()) as { name: string; uri: string; type: string; permissions: string[] }[];
    expect(list).toEqual([
      expect.objectContaining({ name: a.name, uri: a.path, type: 'dir', permissions: ['r', 'w', 'd'] }),
    ]);
  });
  it('the folder listing shows every entry with X-NVM-Permissions', async () => {
    const u = await makeUser();
    const { path } = await newDoc(u);
    const res = await call('GET', path, { token: u.token });
    expect(res.headers.get('X-NVM-Permissions')).toBe('r, w, d');
    expect(await names(res)).toEqual(
      [
        'assets',
        'config',
        'content',
        'description',
        'files',
        'log',
        'name',
        'notifications',
        'shared',
        'shortname',
        'summary',
        'tags',
        'threads',
        'url',
        'vars',
      ].sort((a, b) => a.localeCompare(b)),
    );
  });
  it('DELETE removes the document (then 404), its assets with it', async () => {
    const u = await makeUser();
    const { path } = await newDoc(u, 'x');
    expect((await upload(u, `${path}/assets/a.png`, 'image/png', PNG)).status).toBe(201);
    expect((await call('DELETE', path, { token: u.token })).status).toBe(204);
    expect((await call('GET', `${path}/content`, { token: u.token })).status).toBe(404);
    expect((await call('GET', `${path}/assets/a.png`, { token: u.token })).status).toBe(404);
  });
  it('needs a token', async () => expect((await call('GET', '/v1/vis/docs')).status).toBe(401));
});
