import { describe, expect, it } from 'vitest';
import { http, makeUser, opsToken, unique } from './harness';

describe('foundation over HTTP (server started as npm start does)', () => {
  it('issues a token for a user created through the operator interface', async () => {
    const name = unique('f');
    const created = await http('PUT', `/v1/ops/users/${name}`, {
      token: opsToken(),
      json: { password: 'secret', email: `${name}@example.com` },
    });
    expect(created.status).toBe(201);
    const again = await http('PUT', `/v1/ops/users/${name}`, { token: opsToken(), json: { email_verified: true } });
    expect(again.status).toBe(200);
    const tok = await http('POST', '/v1/token', { json: { username: name, password: 'secret', token_name: 'cli' } });
    expect(tok.status).toBe(200);
    const body = (await tok.json()) as { token: string; token_name: string };
    expect(body.token_name).toBe('cli');
    const who = await http('GET', '/v1/whoami', { token: body.token });
    expect(who.status).toBe(200);
    expect(await who.text()).toBe(name);
    const profile = (await (await http('GET', '/v1/admin/profile', { token: body.token })).json()) as Record<
      string,
      unknown
    >;
    expect(profile).toEqual({
      username: name,
      email: `${name}@example.com`,
      email_verified: true,
      account: 'user',
      plan: 'free',
      profile_public: false,
    });
  });

  it('answers 401 JSON for wrong credentials and missing tokens', async () => {
    const u = await makeUser();
    const bad = await http('POST', '/v1/token', { json: { username: u.username, password: 'wrong' } });
    expect(bad.status).toBe(401);
    expect(((await bad.json()) as { message: string }).message).toMatch(/invalid/);
    const anon = await http('GET', '/v1/whoami');
    expect(anon.status).toBe(401);
    expect(await anon.json()).toMatchObject({ status: 401 });
  });

  it('answers 404 for unknown routes, 405 for wrong methods, 415 for form bodies, with JSON errors', async () => {
    const u = await makeUser();
    const missing = await http('GET', '/v1/no/such/thing', { token: u.token });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ status: 404 });
    const wrong = await http('DELETE', '/v1/whoami', { token: u.token });
    expect(wrong.status).toBe(405);
    const form = await http('POST', '/v1/admin/profile/public', {
      token: u.token,
      text: 'public=yes',
      type: 'application/x-www-form-urlencoded',
    });
    expect(form.status).toBe(415);
  });

  it('folder listings over HTTP: name, uri, type, permissions, actions, created_on, last_modified', async () => {
    const u = await makeUser();
    const doc = unique('ls');
    expect((await http('PUT', `/v1/vis/docs/${doc}`, { token: u.token })).status).toBe(201);
    expect((await http('POST', `/v1/vis/docs/${doc}/content`, { token: u.token, text: '# hi' })).status).toBe(204);

    const res = await http('GET', `/v1/vis/docs/${doc}/`, { token: u.token });
    expect(res.status).toBe(200);
    expect(res.headers.get('Content-Type')).toMatch(/^application\/json/);
    expect(res.headers.get('X-NVM-Permissions')).toBe('r, w, d'); // the permissions joined by a comma
    const items = (await res.json()) as Record<string, unknown>[];
    const iso = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
    for (const item of items) {
      expect(Object.keys(item).sort()).toEqual([
        'actions',
        'created_on',
        'last_modified',
        'name',
        'permissions',
        'type',
        'uri',
      ]);
      expect(['dir', 'file', 'link']).toContain(item.type);
      expect(item.created_on).toMatch(iso);
      expect(item.last_modified).toMatch(iso);
    }
    const content = items.find((i) => i.name === 'content')!;
    expect(content).toMatchObject({
      uri: `/v1/vis/docs/${doc}/content`,
      type: 'file',
      actions: ['GET', 'POST', 'DELETE'],
    });
    expect(items.find((i) => i.name === 'assets')).toMatchObject({ type: 'dir' });

    // The collection lists the document; a stranger gets 404 for it, anonymous 401.
    const all = (await (await http('GET', '/v1/vis/docs', { token: u.token })).json()) as {
      name: string;
      uri: string;
    }[];
    expect(all.find((i) => i.name === doc)).toMatchObject({ uri: `/v1/vis/docs/${doc}` });
    const stranger = await makeUser();
    expect((await http('GET', `/v1/users/${u.username}/vis/docs/${doc}`, { token: stranger.token })).status).toBe(404);
    expect((await http('GET', `/v1/vis/docs/${doc}`)).status).toBe(401);
  });

  it('HEAD answers like GET without a body', async () => {
    const u = await makeUser();
    const res = await http('HEAD', '/v1/whoami', { token: u.token });
    expect(res.status).toBe(200);
    expect(res.headers.get('Content-Type')).toMatch(/^text\/plain/);
    expect(await res.text()).toBe('');
  });

  it('serves tolerant paths and the OpenAPI document', async () => {
    const u = await makeUser();
    const res = await http('GET', '//v1//whoami/', { token: u.token });
    expect(await res.text()).toBe(u.username);
    const doc = (await (await http('GET', '/v1/openapi.json')).json()) as {
      openapi: string;
      paths: Record<string, unknown>;
    };
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.paths['/v1/token']).toBeDefined();
  });
});
