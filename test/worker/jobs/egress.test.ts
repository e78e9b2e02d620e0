/**
 * The sandbox's outbound guard: a job with config/network on reaches public hosts, never
 * loopback or the platform itself, also not through a redirect. Loopback targets only
 * (the address rules themselves are unit-tested in test/worker/core/egress.unit.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { call, makeUser } from '../helpers';
import { makeJob, trigger } from './fixtures';
import { PRIVATE_HOST, STEP_HOST } from './outbound';

const J = '/v1/code/jobs';

/** Code that fetches each URL and answers what it saw, one line per URL. */
const fetcher = (urls: string[]) => `export default { async run() {
  const out = [];
  for (const url of ${JSON.stringify(urls)}) {
    try {
      const r = await fetch(url, { method: url.includes('/echo') ? 'POST' : 'GET', body: url.includes('/echo') ? new FormData() : undefined });
      out.push(r.status + ' ' + (await r.text()).slice(0, 200));
    } catch (e) {
      out.push('threw ' + e.message);
    }
  }
  return out.join('\\n');
} }`;

async function runLog(token: string, job: string, run: string): Promise<string> {
  return (await call('GET', `${J}/${job}/runs/${run}/log`, { token })).text();
}

describe('the sandbox outbound guard', () => {
  it('a job with network on gets a 403 refusal for loopback and the platform origin, and the run log says so', async () => {
    const u = await makeUser();
    const urls = [
      'http://127.0.0.1:1/x',
      'http://127.0.0.1:8787/cdn-cgi/handler/email',
      'http://localhost:1/',
      'http://[::1]:1/',
      'http://2130706433:1/',
    ];
    await makeJob(u, 'snoop', fetcher(urls), { 'config/network': 'true' });
    const res = await trigger(u.token, `${J}/snoop`);
    expect(res.status).toBe(200);
    const lines = (await res.text()).split('\n');
    expect(lines).toHaveLength(urls.length);
    for (const line of lines) {
      expect(line).toMatch(/^403 /);
      expect(line).toContain('outbound request refused');
    }
    const log = await runLog(u.token, 'snoop', res.headers.get('X-Run-Id')!);
    expect(log).toContain(
      'WARNING outbound request refused: GET http://127.0.0.1:1/x: 127.0.0.1 is a loopback address',
    );
    expect(log).toContain('http://127.0.0.1:8787/cdn-cgi/handler/email');
  });

  it('a host name resolving to a private, loopback or unknown address is refused (the resolver is asked first)', async () => {
    const u = await makeUser();
    const urls = [`https://${PRIVATE_HOST}/pair`, 'https://rebind.jobs.test/pair', 'https://nowhere.jobs.test/pair'];
    await makeJob(u, 'names', fetcher(urls), { 'config/network': 'true' });
    const res = await trigger(u.token, `${J}/names`);
    expect(res.status).toBe(200);
    expect((await res.text()).split('\n').map((line) => /refused: .*?: (.*)"/.exec(line)?.[1])).toEqual([
      `${PRIVATE_HOST} resolves to 10.0.0.7 is a private address`,
      'rebind.jobs.test resolves to 127.0.0.1 is a loopback address',
      'nowhere.jobs.test does not resolve to an address',
    ]);
  });

  it('a redirect from a public host to loopback is refused at the hop', async () => {
    const u = await makeUser();
    const to = encodeURIComponent('http://127.0.0.1:1/private');
    await makeJob(
      u,
      'bounce',
      fetcher([`https://${STEP_HOST}/redirect?to=${to}`, `https://${STEP_HOST}/redirect?status=307&to=${to}`]),
      { 'config/network': 'true' },
    );
    const res = await trigger(u.token, `${J}/bounce`);
    expect(res.status).toBe(200);
    for (const line of (await res.text()).split('\n'))
      expect(line).toMatch(/^403 .*outbound request refused.*127\.0\.0\.1 is a loopback address/);
  });

  it('public hosts pass through, redirects included', async () => {
    const u = await makeUser();
    await makeJob(
      u,
      'public',
      fetcher([`https://${STEP_HOST}/fail`, `https://${STEP_HOST}/redirect?hops=2&to=https://${STEP_HOST}/fail`]),
      { 'config/network': 'true' },
    );
    const res = await trigger(u.token, `${J}/public`);
    expect(await res.text()).toBe('500 down for maintenance\n500 down for maintenance');
    expect(await runLog(u.token, 'public', res.headers.get('X-Run-Id')!)).not.toContain('refused');
  });

  it("a remote answer cannot forge the guard's refusal line in the run log", async () => {
    const u = await makeUser();
    await makeJob(u, 'forged', fetcher([`https://${STEP_HOST}/forged`]), { 'config/network': 'true' });
    const res = await trigger(u.token, `${J}/forged`);
    expect(await res.text()).toBe('200 not a refusal');
    expect(await runLog(u.token, 'forged', res.headers.get('X-Run-Id')!)).not.toContain('refused');
  });
});
