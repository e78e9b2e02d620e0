import { describe, expect, it } from 'vitest';
import { call, makeUser } from '../helpers';

describe('profile entries: name, bio, timezone (client contract)', () => {
  it('name and bio read back byte for byte; default empty', async () => {
    const u = await makeUser();
    expect(await (await call('GET', '/v1/admin/profile/name', { token: u.token })).text()).toBe('');
    expect(await (await call('GET', '/v1/admin/profile/bio', { token: u.token })).text()).toBe('');
    const name = '\uFEFFÅse Ødegård 😀  ';
    const bio = 'Line one\r\nline two\n\n  indented\t\n';
    expect((await call('POST', '/v1/admin/profile/name', { token: u.token, text: name })).status).toBe(204);
    expect((await call('POST', '/v1/admin/profile/bio', { token: u.token, text: bio })).status).toBe(204);
    const n = await call('GET', '/v1/admin/profile/name', { token: u.token });
    expect(n.headers.get('Content-Type')).toMatch(/^text\/plain/);
    expect(new Uint8Array(await n.arrayBuffer())).toEqual(new TextEncoder().encode(name));
    expect(await (await call('GET', '/v1/admin/profile/bio', { token: u.token })).text()).toBe(bio);
  });

  it('each user reads only their own profile; without a token 401', async () => {
    const a = await makeUser();
    const b = await makeUser();
    await call('POST', '/v1/admin/profile/name', { token: a.token, text: 'Alice' });
    expect(await (await call('GET', '/v1/admin/profile/name', { token: b.token })).text()).toBe('');
    expect((await call('GET', '/v1/admin/profile/name')).status).toBe(401);
    expect((await call('POST', '/v1/admin/profile/bio', { text: 'x' })).status).toBe(401);
  });

  it('a name is one line of at most 128 characters: 400 otherwise, nothing stored', async () => {
    const u = await makeUser();
    await call('POST', '/v1/admin/profile/name', { token: u.token, text: 'Kept' });
    for (const bad of ['two\nlines', 'x'.repeat(129)]) {
      const res = await call('POST', '/v1/admin/profile/name', { token: u.token, text: bad });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { message: string }).message).toMatch(/name/);
    }
    expect((await call('POST', '/v1/admin/profile/name', { token: u.token, text: '😀'.repeat(128) })).status).toBe(204);
    expect((await call('POST', '/v1/admin/profile/name', { token: u.token, text: 'y'.repeat(2000) })).status).toBe(413);
    expect(await (await call('GET', '/v1/admin/profile/name', { token: u.token })).text()).toBe('😀'.repeat(128));
  });

  it('a bio is at most 4 KiB (413), text/plain only (415)', async () => {
    const u = await makeUser();
    expect((await call('POST', '/v1/admin/profile/bio', { token: u.token, text: 'b'.repeat(4096) })).status).toBe(204);
    expect((await call('POST', '/v1/admin/profile/bio', { token: u.token, text: 'b'.repeat(4097) })).status).toBe(413);
    expect(
      (
        await call('POST', '/v1/admin/profile/bio', {
          token: u.token,
          text: 'x',
          type: 'application/x-www-form-urlencoded',
        })
      ).status,
    ).toBe(415);
    expect(await (await call('GET', '/v1/admin/profile/bio', { token: u.token })).text()).toBe('b'.repeat(4096));
  });

  it('timezone defaults to UTC and takes IANA zones only', async () => {
    const u = await makeUser();
    expect(await (await call('GET', '/v1/admin/profile/timezone', { token: u.token })).text()).toBe('UTC');
    expect((await call('POST', '/v1/admin/profile/timezone', { token: u.token, text: 'Europe/Oslo' })).status).toBe(
      204,
    );
    expect(await (await call('GET', '/v1/admin/profile/timezone', { token: u.token })).text()).toBe('Europe/Oslo');
    for (const bad of ['Mars/Olympus', '', 'Europe/Oslo\n', '+01:00', ' UTC']) {
      const res = await call('POST', '/v1/admin/profile/timezone', { token: u.token, text: bad });
      expect(res.status, bad).toBe(400);
    }
    expect((await call('POST', '/v1/admin/profile/timezone', { token: u.token, text: 'x'.repeat(100) })).status).toBe(
      413,
    );
    expect(await (await call('GET', '/v1/admin/profile/timezone', { token: u.token })).text()).toBe('Europe/Oslo');
  });

  it('url is the public profile url', async () => {
    const u = await makeUser();
    const res = await call('GET', '/v1/admin/profile/url', { token: u.token });
    expect(res.status).toBe(200);
    expect(await res.text()).toMatch(new RegExp(`^https?://[^/]+/u/${u.username}$`));
    expect((await call('GET', '/v1/admin/profile/url')).status).toBe(401);
  });

  it('overview names the account and counts its resources and groups', async () => {
    const u = await makeUser({ email: 'ov@example.com', email_verified: true });
    await call('POST', '/v1/admin/profile/name', { token: u.token, text: 'Olive View' });
    await call('PUT', '/v1/vis/docs/d1', { token: u.token });
    await call('PUT', '/v1/vis/docs/d2', { token: u.token });
    await call('PUT', '/v1/vis/grids/g1', { token: u.token });
    await call('PUT', '/v1/admin/groups/team', { token: u.token });
    const res = await call('GET', '/v1/admin/profile/overview', { token: u.token });
    expect(res.status).toBe(200);
    expect(res.headers.get('Content-Type')).toMatch(/^text\/plain/);
    const text = await res.text();
    expect(text).toContain(u.username);
    expect(text).toContain('Olive View');
    expect(text).toMatch(/ov@example\.com \(verified\)/);
    expect(text).toMatch(/Plan:\s+free/);
    expect(text).toMatch(/Account:\s+user/);
    expect(text).toMatch(/Documents:\s+2\n/);
    expect(text).toMatch(/Grids:\s+1\n/);
    expect(text).toMatch(/E-mails:\s+0\n/);
    expect(text).toMatch(/Jobs:\s+0\n/);
    expect(text).toMatch(/Groups:\s+1\n/);
    expect((await call('GET', '/v1/admin/profile/overview')).status).toBe(401);
  });
});
