/**
 * The sandbox's outbound guard on the real server (wrangler dev, as `npm start` runs it):
 * a job with config/network on cannot reach a loopback listener or the platform's own
 * /cdn-cgi/handler/email, by fetch or by a raw socket (redirect hops: test/worker/jobs/egress.test.ts).
 * Loopback only.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { base, http, makeUser } from './harness';

const J = '/v1/code/jobs';
let server: Server;
let port = 0;
let connections = 0;

beforeAll(async () => {
  server = createServer((_req, res) => res.end('reached'));
  server.on('connection', () => connections++);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});

afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('the sandbox outbound guard (real server)', () => {
  it('a job with network on cannot reach loopback or forge inbound mail through /cdn-cgi/handler/email', async () => {
    const u = await makeUser();
    const mail = ['From: a@example.com', 'To: ops@x.mail.localhost', 'Subject: forged', '', 'hi', ''].join('\r\n');
    const code = `import { connect } from 'cloudflare:sockets';
export default { async run() {
  const out = [];
  const tries = [
    ['http://127.0.0.1:${port}/secret', {}],
    ['http://localhost:${port}/secret', {}],
    [${JSON.stringify(`${base()}/cdn-cgi/handler/email?from=a%40example.com&to=ops%40x.mail.localhost`)}, { method: 'POST', body: ${JSON.stringify(mail)} }],
  ];
  for (const [url, init] of tries) {
    try { const r = await fetch(url, init); out.push(r.status + ' ' + (await r.text())); } catch (e) { out.push('threw ' + e.message); }
  }
  try { const s = connect({ hostname: '127.0.0.1', port: ${port} }); await s.opened; out.push('socket opened'); await s.close(); } catch (e) { out.push('socket refused'); }
  return out.join('\\n');
} }`;
    expect((await http('PUT', `${J}/egress`, { token: u.token })).status).toBe(201);
    expect(
      (await http('POST', `${J}/egress/code/index.js`, { token: u.token, body: code, type: 'text/javascript' })).status,
    ).toBe(204);
    expect((await http('POST', `${J}/egress/config/network`, { token: u.token, text: 'true' })).status).toBe(204);
    const res = await http('POST', `${J}/egress/data`, { token: u.token, json: {} });
    expect(res.status).toBe(200);
    const lines = (await res.text()).split('\n');
    expect(lines.slice(0, 3).every((l) => l.startsWith('403 ') && l.includes('outbound request refused'))).toBe(true);
    expect(lines[3]).toBe('socket refused');
    expect(connections).toBe(0);
    const log = await (
      await http('GET', `${J}/egress/runs/${res.headers.get('X-Run-Id')}/log`, { token: u.token })
    ).text();
    expect(log).toContain('/cdn-cgi/handler/email');
    expect(log).toContain('is a loopback address');
  });
});
