/**
 * https:// chain steps: the address check on write and on every hop, redirects followed
 * by hand (at most HTTPS_STEP_MAX_REDIRECTS), and the bytes read from the answer capped
 * (HTTPS_STEP_MAX_BYTES). Targets are the stub hosts and loopback only.
 */
import { env } from 'cloudflare:workers';
import { unzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { HTTPS_STEP_MAX_BYTES, HTTPS_STEP_MAX_REDIRECTS, httpsStep } from '../../../src/jobs/https-step';
import { call, makeUser } from '../helpers';
import { makeJob, trigger } from './fixtures';
import { MIRROR_HOST, PRIVATE_HOST, STEP_HOST } from './outbound';

const J = '/v1/code/jobs';
const url = (path: string, host = STEP_HOST) => `https://${host}${path}`;
const loopback = encodeURIComponent('https://127.0.0.1:1/private');

async function failedLog(token: string, job: string): Promise<string> {
  const res = await trigger(token, `${J}/${job}`);
  expect(res.status).toBe(502);
  const { run } = (await res.json()) as { run: string };
  return (await call('GET', `${J}/${job}/runs/${run}/log`, { token })).text();
}

describe('https steps: the address check', () => {
  it.each([
    'https://127.0.0.1/x',
    'https://localhost/x',
    'https://[::1]/x',
    'https://2130706433/x',
    'https://0x7f.1/x',
    'https://[::ffff:127.0.0.1]/x',
  ])('a chain naming %s is refused on write (400 naming the line and the step)', async (target) => {
    const u = await makeUser();
    await makeJob(u, 'w');
    const res = await call('POST', `${J}/w/config/chains`, {
      token: u.token,
      text: `first <- ${url('/pair')}\nhook <- ${target}\nfirst -> hook`,
    });
    expect(res.status).toBe(400);
    const { message } = (await res.json()) as { message: string };
    expect(message).toMatch(/^invalid config\/chains: line 2: step 'hook': .*loopback/);
    expect(await (await call('GET', `${J}/w/config/chains`, { token: u.token })).text()).toBe('');
  });
  it("the platform's own origin is refused at run time (the step sends nothing)", async () => {
    // PUBLIC_ORIGIN is loopback in the tests: hand the step an origin equal to the stub host.
    const own = { ...env, PUBLIC_ORIGIN: `https://${STEP_HOST}` } as Env;
    const out = await httpsStep(own, url('/pair'), [], new AbortController().signal);
    expect(out).toEqual({ kind: 'failed', message: `${url('/pair')} refused: ${STEP_HOST} is the platform itself` });
    const start = url(`/redirect?to=${encodeURIComponent(url('/pair'))}`, MIRROR_HOST);
    const hop = await httpsStep(own, start, [], new AbortController().signal);
    expect(hop).toEqual({
      kind: 'failed',
      message: `${start}: redirect 1 to ${url('/pair')} refused: ${STEP_HOST} is the platform itself`,
    });
  });
  it('a redirect to loopback fails the step at that hop, before any request is sent there', async () => {
    const u = await makeUser();
    await makeJob(u, 'bounce', undefined, { 'config/chains': `hook <- ${url(`/redirect?to=${loopback}`)}\nhook` });
    expect(await failedLog(u.token, 'bounce')).toContain(
      'redirect 1 to https://127.0.0.1:1/private refused: 127.0.0.1 is a loopback address',
    );
  });
  it('a host name that resolves to a private address is refused, first or at a hop, before anything is sent', async () => {
    const target = url('/pair', PRIVATE_HOST);
    expect(await httpsStep(env, target, [], new AbortController().signal)).toEqual({
      kind: 'failed',
      message: `${target} refused: ${PRIVATE_HOST} resolves to 10.0.0.7 is a private address`,
    });
    const u = await makeUser();
    await makeJob(u, 'dns', undefined, {
      'config/chains': `hook <- ${url(`/redirect?to=${encodeURIComponent(url('/pair', 'rebind.jobs.test'))}`)}\nhook`,
    });
    expect(await failedLog(u.token, 'dns')).toContain(
      'redirect 1 to https://rebind.jobs.test/pair refused: rebind.jobs.test resolves to 127.0.0.1 is a loopback address',
    );
  });
  it('a redirect to another scheme is refused (an https step stays on https)', async () => {
    const u = await makeUser();
    const to = encodeURIComponent(`http://${STEP_HOST}/pair`);
    await makeJob(u, 'downgrade', undefined, { 'config/chains': `hook <- ${url(`/redirect?to=${to}`)}\nhook` });
    expect(await failedLog(u.token, 'downgrade')).toContain(
      `redirect 1 to http://${STEP_HOST}/pair refused: an https step only follows https redirects`,
    );
  });
});

describe('https steps: redirects', () => {
  it(`a cross-origin redirect is followed once checked; 302 turns the POST into a GET`, async () => {
    const u = await makeUser();
    const to = encodeURIComponent(url('/pair', MIRROR_HOST));
    await makeJob(u, 'cross', undefined, { 'config/chains': `hook <- ${url(`/redirect?to=${to}`)}\nhook` });
    const res = await trigger(u.token, `${J}/cross`);
    expect(res.status).toBe(200);
    expect(Object.keys(unzipSync(new Uint8Array(await res.arrayBuffer())))).toEqual(['one.txt', 'two.txt']);
  });
  it('307 and 308 send the same method and input again', async () => {
    const u = await makeUser();
    const to = encodeURIComponent(url('/echo', MIRROR_HOST));
    await makeJob(u, 'keep', undefined, {
      'config/chains': `hook <- ${url(`/redirect?status=308&hops=1&to=${to}`)}\nhook`,
    });
    const res = await call('POST', `${J}/keep/data`, { token: u.token, json: { a: 1 } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      method: 'POST',
      parts: [{ field: 'file', name: 'input.json', type: 'application/json', text: '{"a":1}' }],
    });
  });
  it(`at most ${HTTPS_STEP_MAX_REDIRECTS} redirects are followed`, async () => {
    const u = await makeUser();
    const to = encodeURIComponent(url('/pair'));
    await makeJob(u, 'five', undefined, {
      'config/chains': `hook <- ${url(`/redirect?hops=${HTTPS_STEP_MAX_REDIRECTS - 1}&to=${to}`)}\nhook`,
    });
    expect((await trigger(u.token, `${J}/five`)).status).toBe(200);
    await makeJob(u, 'six', undefined, {
      'config/chains': `hook <- ${url(`/redirect?hops=${HTTPS_STEP_MAX_REDIRECTS}&to=${to}`)}\nhook`,
    });
    expect(await failedLog(u.token, 'six')).toContain(`more than ${HTTPS_STEP_MAX_REDIRECTS} redirects`);
  });
});

describe('https steps: the bytes read from the answer are capped', () => {
  const mib = HTTPS_STEP_MAX_BYTES / 1024 / 1024;
  it(`a single body over ${mib} MiB fails the step with a log line naming the cap`, async () => {
    const u = await makeUser();
    await makeJob(u, 'huge', undefined, { 'config/chains': `hook <- ${url(`/big?mib=${mib + 1}`)}\nhook` });
    expect(await failedLog(u.token, 'huge')).toContain(`answered more than ${mib} MiB`);
  });
  it(`a multipart answer over ${mib} MiB fails the same way`, async () => {
    const u = await makeUser();
    await makeJob(u, 'hugeform', undefined, {
      'config/chains': `hook <- ${url(`/big?mib=${mib + 1}&multipart=1`)}\nhook`,
    });
    expect(await failedLog(u.token, 'hugeform')).toContain(`answered more than ${mib} MiB`);
  });
  it('an answer under the cap is the output', async () => {
    const u = await makeUser();
    await makeJob(u, 'fine', undefined, { 'config/chains': `hook <- ${url('/big?mib=1')}\nhook` });
    const res = await trigger(u.token, `${J}/fine`);
    expect(res.status).toBe(200);
    expect((await res.arrayBuffer()).byteLength).toBe(1024 * 1024);
  });
});
