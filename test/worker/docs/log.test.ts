// The document log: what is recorded (writes, shares, renames, copies, variables), as
// text or JSON.
import { describe, expect, it, vi } from 'vitest';
import { call, makeUser, unique } from '../helpers';
import { makeGroup, newDoc, PNG, upload } from './fixtures';

// Each test walks many requests through the Worker; on a loaded machine 30 s is not enough.
vi.setConfig({ testTimeout: 180_000 });

describe('the document log', () => {
  it('records what happened: text by default, JSON entries with Accept: application/json', async () => {
    const u = await makeUser();
    const { path } = await newDoc(u, 'hello');
    await upload(u, `${path}/assets/a.png`, 'image/png', PNG);
    const plain = await (await call('GET', `${path}/log`, { token: u.token })).text();
    expect(plain).toMatch(/INFO document created\n/);
    expect(plain).toMatch(/content written \(5 bytes\)/);
    expect(plain).toMatch(/asset a\.png uploaded/);
    const json = (await (
      await call('GET', `${path}/log`, { token: u.token, headers: { Accept: 'application/json' } })
    ).json()) as {
      log_time: string;
      severity: string;
      message: string;
    }[];
    expect(json[0]).toEqual({ log_time: expect.stringMatching(/Z$/), severity: 'info', message: 'document created' });
    expect((await call('POST', `${path}/log`, { token: u.token, text: 'x' })).status).toBe(405);
  });
  it('records shares and their revocation, renames, copies and variable changes', async () => {
    const u = await makeUser();
    const member = await makeUser();
    const g = await makeGroup(u, [{ user: member }]);
    const { name, path } = await newDoc(u, 'x');
    await call('PUT', `${path}/shared/${g.ref}`, { token: u.token });
    await call('DELETE', `${path}/shared/${g.ref}`, { token: u.token });
    await call('PUT', `${path}/vars/rev`, { token: u.token });
    await call('POST', `${path}/vars/rev/value`, { token: u.token, text: '12' });
    await call('DELETE', `${path}/vars/rev/value`, { token: u.token });
    await call('DELETE', `${path}/vars/rev`, { token: u.token });
    const to = unique('r');
    expect((await call('PATCH', path, { token: u.token, text: to })).status).toBe(200);
    const moved = `/v1/vis/docs/${to}`;
    const cp = unique('c');
    expect((await call('PATCH', moved, { token: u.token, json: { name: cp, copy: true } })).status).toBe(201);
    const messages = (
      (await (
        await call('GET', `${moved}/log`, { token: u.token, headers: { Accept: 'application/json' } })
      ).json()) as { message: string }[]
    ).map((e) => e.message);
    expect(messages).toEqual(
      expect.arrayContaining([
        `shared with ${g.ref}`,
        `sharing with ${g.ref} revoked`,
        'variable rev created',
        'variable rev: value written',
        'variable rev: value reset',
        'variable rev deleted',
        `renamed from ${name} to ${to}`,
      ]),
    );
    const copyLog = await (await call('GET', `/v1/vis/docs/${cp}/log`, { token: u.token })).text();
    expect(copyLog).toContain(`copied from ${u.username}/${to}`);
  });
});
