// Text entries: read back byte for byte, the content size limit (spilling to R2), text-only
// bodies, and the read-only shortname and url.
import { describe, expect, it, vi } from 'vitest';
import { call, makeUser } from '../helpers';
import { MiB, newDoc, text } from './fixtures';

// Each test walks many requests through the Worker; on a loaded machine 30 s is not enough.
vi.setConfig({ testTimeout: 180_000 });

describe('text entries', () => {
  it('content reads back byte for byte (text/plain, X-NVM-Type file)', async () => {
    const u = await makeUser();
    const body = '# Title\n\n  spaced  \n\nünïcödé {{ page }}\n\n\n';
    const { path } = await newDoc(u, body);
    const res = await call('GET', `${path}/content`, { token: u.token });
    expect(res.headers.get('Content-Type')).toMatch(/^text\/plain/);
    expect(res.headers.get('X-NVM-Type')).toBe('file');
    expect(await res.text()).toBe(body);
  });
  it('content up to 2 MiB is stored (and spills to R2); above 2 MiB answers 413 and stores nothing', async () => {
    const u = await makeUser();
    const { path } = await newDoc(u, 'before');
    const big = 'a'.repeat(2 * MiB);
    expect((await call('POST', `${path}/content`, { token: u.token, text: big })).status).toBe(204);
    expect((await call('GET', `${path}/content`, { token: u.token }).then((r) => r.text())).length).toBe(2 * MiB);
    const tooBig = await call('POST', `${path}/content`, { token: u.token, text: big + 'b' });
    expect(tooBig.status).toBe(413);
    expect(await tooBig.json()).toMatchObject({ status: 413, message: expect.stringContaining('content') });
    expect((await call('GET', `${path}/content`, { token: u.token }).then((r) => r.text())).length).toBe(2 * MiB);
  });
  it.each(['content', 'name', 'description', 'summary'])('%s: POST writes, GET reads, DELETE clears', async (entry) => {
    const u = await makeUser();
    const { path } = await newDoc(u);
    expect(await text(await call('GET', `${path}/${entry}`, { token: u.token }))).toEqual({ status: 200, body: '' });
    expect((await call('POST', `${path}/${entry}`, { token: u.token, text: `my ${entry}` })).status).toBe(204);
    expect(await text(await call('GET', `${path}/${entry}`, { token: u.token }))).toEqual({
      status: 200,
      body: `my ${entry}`,
    });
    expect((await call('DELETE', `${path}/${entry}`, { token: u.token })).status).toBe(204);
    expect(await text(await call('GET', `${path}/${entry}`, { token: u.token }))).toEqual({ status: 200, body: '' });
  });
  it('a form-urlencoded body answers 415 and stores nothing', async () => {
    const u = await makeUser();
    const { path } = await newDoc(u, 'kept');
    const res = await call('POST', `${path}/content`, {
      token: u.token,
      text: 'a=b',
      type: 'application/x-www-form-urlencoded',
    });
    expect(res.status).toBe(415);
    expect((await res.json()) as object).toMatchObject({ message: expect.stringContaining('text/plain') });
    expect(await (await call('GET', `${path}/content`, { token: u.token })).text()).toBe('kept');
  });
  it('shortname and url are read-only; url is <origin>/u/<user>/d/<doc>', async () => {
    const u = await makeUser();
    const { name, path } = await newDoc(u);
    const short = await (await call('GET', `${path}/shortname`, { token: u.token })).text();
    expect(short).toMatch(/^[a-z0-9]{6,}$/);
    const url = await (await call('GET', `${path}/url`, { token: u.token })).text();
    expect(url).toMatch(new RegExp(`/u/${u.username}/d/${name}$`));
    expect((await call('POST', `${path}/shortname`, { token: u.token, text: 'x' })).status).toBe(405);
    expect((await call('POST', `${path}/url`, { token: u.token, text: 'x' })).status).toBe(405);
  });
});
