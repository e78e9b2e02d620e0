// Variables: create (also concurrently), attributes and their bounds, the alias's JSON,
// text and ansi forms, delete.
import { env } from 'cloudflare:workers';
import { describe, expect, it, vi } from 'vitest';
import { call, makeUser } from '../helpers';
import { names, newDoc } from './fixtures';

// Each test walks many requests through the Worker; on a loaded machine 30 s is not enough.
vi.setConfig({ testTimeout: 180_000 });

describe('variables', () => {
  it('PUT vars/<var> creates (201) with defaults; again 409; bad names 400', async () => {
    const u = await makeUser();
    const { path } = await newDoc(u);
    expect((await call('PUT', `${path}/vars/revenue`, { token: u.token })).status).toBe(201);
    expect((await call('PUT', `${path}/vars/revenue`, { token: u.token })).status).toBe(409);
    for (const bad of ['Rev', 'a.b', 'x'.repeat(51)])
      expect((await call('PUT', `${path}/vars/${bad}`, { token: u.token })).status).toBe(400);
    expect(await names(await call('GET', `${path}/vars`, { token: u.token }))).toEqual(['revenue']);
    expect(await names(await call('GET', `${path}/vars/revenue`, { token: u.token }))).toEqual([
      'value',
      'type',
      'format',
      'about',
      'threshold',
    ]);
    expect(await (await call('GET', `${path}/vars/revenue/type`, { token: u.token })).text()).toBe('number');
  });
  it('concurrent creates of one variable: exactly one 201', async () => {
    const u = await makeUser();
    const { path } = await newDoc(u);
    const codes = (
      await Promise.all(Array.from({ length: 5 }, () => call('PUT', `${path}/vars/v1`, { token: u.token })))
    ).map((r) => r.status);
    expect(codes.sort()).toEqual([201, 409, 409, 409, 409]);
  });
  it('attributes write with POST text/plain, reset with DELETE; invalid values 400 and keep the old value', async () => {
    const u = await makeUser();
    const { path } = await newDoc(u);
    await call('PUT', `${path}/vars/growth`, { token: u.token });
    const w = (attr: string, v: string) => call('POST', `${path}/vars/growth/${attr}`, { token: u.token, text: v });
    expect((await w('type', 'relative')).status).toBe(204);
    expect((await w('value', '-0.042')).status).toBe(204);
    expect((await w('format', '+.1%')).status).toBe(204);
    expect((await w('about', 'Growth against last month')).status).toBe(204);
    expect((await w('threshold', '-0.01,0.01')).status).toBe(204);
    expect((await w('value', 'lots')).status).toBe(400);
    expect((await w('value', '1'.repeat(51))).status).toBe(400);
    expect((await w('type', 'percent')).status).toBe(400);
    expect((await w('type', 'date')).status).toBe(400);
    expect((await w('format', 'zz')).status).toBe(400);
    expect((await w('about', 'a'.repeat(251))).status).toBe(400);
    expect((await w('threshold', 'low,high')).status).toBe(400);
    expect((await call('POST', `${path}/vars/growth/colour`, { token: u.token, text: 'x' })).status).toBe(404);
    expect((await call('POST', `${path}/vars/nosuch/value`, { token: u.token, text: '1' })).status).toBe(404);
    expect(await (await call('GET', `${path}/vars/growth/value`, { token: u.token })).text()).toBe('-0.042');
    expect((await call('DELETE', `${path}/vars/growth/about`, { token: u.token })).status).toBe(204);
    expect(await (await call('GET', `${path}/vars/growth/about`, { token: u.token })).text()).toBe('');
  });
  it('a number format wider than 64 or more precise than 20 is refused; one stored before the rule prints clamped', async () => {
    const u = await makeUser();
    const { name, path } = await newDoc(u);
    await call('PUT', `${path}/vars/big`, { token: u.token });
    await call('POST', `${path}/vars/big/value`, { token: u.token, text: '7' });
    const w = (v: string) => call('POST', `${path}/vars/big/format`, { token: u.token, text: v });
    const wide = await w('150000000d');
    expect(wide.status).toBe(400);
    expect(((await wide.json()) as { message: string }).message).toContain('width is at most 64');
    const precise = await w('.25f');
    expect(precise.status).toBe(400);
    expect(((await precise.json()) as { message: string }).message).toContain('precision is at most 20');
    expect(await (await call('GET', `${path}/vars/big/format`, { token: u.token })).text()).toBe('');
    expect((await w('64d')).status).toBe(204);
    expect((await w('.20f')).status).toBe(204);
    // A format stored before the rule (written straight into D1) still prints at most 64 characters.
    await env.DB.prepare(
      `UPDATE entries SET value = '150000000d', size = 10 WHERE path = 'vars/big/format'
       AND resource_id = (SELECT r.id FROM resources r JOIN users u ON u.id = r.owner_id WHERE u.username = ? AND r.name = ? AND r.kind = 'doc')`,
    )
      .bind(u.username, name)
      .run();
    expect(await (await call('GET', `${path}/vars/big/format`, { token: u.token })).text()).toBe('150000000d');
    const txt = await call('GET', `/v1/u/${u.username}/d/${name}/v/big/txt`, { token: u.token });
    expect(txt.status).toBe(200);
    const text = await txt.text();
    expect(text.length).toBe(64);
    expect(text.trim()).toBe('7');
  });
  it('the alias serves variables as JSON, formatted text and ansi', async () => {
    const u = await makeUser();
    const { name, path } = await newDoc(u);
    await call('PUT', `${path}/vars/growth`, { token: u.token });
    await call('POST', `${path}/vars/growth/type`, { token: u.token, text: 'relative' });
    await call('POST', `${path}/vars/growth/value`, { token: u.token, text: '-0.042' });
    await call('POST', `${path}/vars/growth/format`, { token: u.token, text: '+.1%' });
    await call('PUT', `${path}/vars/total`, { token: u.token });
    await call('POST', `${path}/vars/total/value`, { token: u.token, text: '1234567.5' });
    await call('POST', `${path}/vars/total/format`, { token: u.token, text: ',.2f' });
    const base = `/v1/u/${u.username}/d/${name}/v`;
    const list = (await (await call('GET', base, { token: u.token })).json()) as { name: string; text: string }[];
    expect(list.map((v) => [v.name, v.text])).toEqual([
      ['growth', '↓ \u22124.2%'],
      ['total', '1,234,567.50'],
    ]);
    expect(await (await call('GET', `${base}/growth`, { token: u.token })).json()).toEqual({
      name: 'growth',
      value: '-0.042',
      type: 'relative',
      format: '+.1%',
      about: '',
      threshold: '',
      text: '↓ \u22124.2%',
      band: 'down',
      color: '#cf222e',
    });
    expect(await (await call('GET', `${base}/growth/txt`, { token: u.token })).text()).toBe('↓ \u22124.2%');
    expect(await (await call('GET', `${base}/growth/ansi`, { token: u.token })).text()).toBe(
      '\u001b[31m↓ \u22124.2%\u001b[0m',
    );
    expect(await (await call('GET', `${base}/total/txt`, { token: u.token })).text()).toBe('1,234,567.50');
    expect((await call('GET', `${base}/nosuch`, { token: u.token })).status).toBe(404);
    expect((await call('GET', `${base}/growth`)).status).toBe(404);
  });
  it('DELETE vars/<var> removes the variable (then 404)', async () => {
    const u = await makeUser();
    const { path } = await newDoc(u);
    await call('PUT', `${path}/vars/a_b`, { token: u.token });
    await call('PUT', `${path}/vars/axb`, { token: u.token });
    expect((await call('DELETE', `${path}/vars/a_b`, { token: u.token })).status).toBe(204);
    expect((await call('GET', `${path}/vars/a_b`, { token: u.token })).status).toBe(404);
    expect((await call('DELETE', `${path}/vars/a_b`, { token: u.token })).status).toBe(404);
    expect(await names(await call('GET', `${path}/vars`, { token: u.token }))).toEqual(['axb']);
  });
});
