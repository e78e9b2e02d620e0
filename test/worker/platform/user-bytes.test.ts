/**
 * Every route that serves bytes a user stored answers them with `X-Content-Type-Options:
 * nosniff` and a `Content-Security-Policy` with `sandbox` (the one helper,
 * USER_BYTES_HEADERS in core/http.ts): an uploaded HTML or SVG file opened in a tab can
 * neither be sniffed into another type nor run script in the API's origin.
 *
 * Not listed: the rendered files/doc.pdf and doc.pptx (the platform's own render of a
 * sanitized page, with nosniff; a sandboxing policy would stop browsers showing an inline
 * PDF) and text entries (text/plain, never rendered as a document).
 */
import { describe, expect, it } from 'vitest';
import { USER_BYTES_HEADERS } from '../../../src/core/http';
import { makeJob, putCode, trigger } from '../jobs/fixtures';
import { call, makeUser, unique, type TestUser } from '../helpers';

/** A 1x1 PNG. */
const PNG = Uint8Array.from(
  atob('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=='),
  (c) => c.charCodeAt(0),
);
const HTML_JOB = `export default { async run() { return new File(['<script>alert(1)</script>'], 'page.html', { type: 'text/html' }); } }`;

async function ok(res: Promise<Response>): Promise<Response> {
  const r = await res;
  if (r.status >= 300) throw new Error(`${r.status} ${await r.text()}`);
  return r;
}

/** Each route serving stored user bytes: how to put bytes there, and the request that reads them back. */
const ROUTES: { name: string; read: (u: TestUser) => Promise<Response> }[] = [
  {
    name: 'GET /v1/vis/docs/:doc/assets/:asset',
    read: async (u) => {
      const doc = `/v1/vis/docs/${unique('d')}`;
      await ok(call('PUT', doc, { token: u.token }));
      await ok(
        call('POST', `${doc}/assets/a.png`, { token: u.token, body: PNG, headers: { 'Content-Type': 'image/png' } }),
      );
      return call('GET', `${doc}/assets/a.png`, { token: u.token });
    },
  },
  {
    name: 'GET /v1/vis/mails/:mail/assets/:asset',
    read: async (u) => {
      const mail = `/v1/vis/mails/${unique('m')}`;
      await ok(call('PUT', mail, { token: u.token }));
      await ok(
        call('POST', `${mail}/assets/a.png`, { token: u.token, body: PNG, headers: { 'Content-Type': 'image/png' } }),
      );
      return call('GET', `${mail}/assets/a.png`, { token: u.token });
    },
  },
  {
    name: 'GET /v1/code/jobs/:job/code/:file',
    read: async (u) => {
      const job = await makeJob(u, unique('j'));
      await putCode(u, job, 'page.html', '<script>alert(1)</script>');
      return call('GET', `/v1/code/jobs/${job}/code/page.html`, { token: u.token });
    },
  },
  {
    name: 'POST /v1/code/jobs/:job/data (the run output in the answer)',
    read: async (u) => trigger(u.token, `/v1/code/jobs/${await makeJob(u, unique('j'), HTML_JOB)}`),
  },
  {
    name: 'GET /v1/code/jobs/:job/runs/:run/output',
    read: async (u) => {
      const job = await makeJob(u, unique('j'), HTML_JOB);
      const run = (await ok(trigger(u.token, `/v1/code/jobs/${job}`))).headers.get('X-Run-Id');
      return call('GET', `/v1/code/jobs/${job}/runs/${run}/output`, { token: u.token });
    },
  },
  {
    name: 'GET /v1/admin/groups/:group/profile/picture/image',
    read: async (u) => {
      const group = `/v1/admin/groups/${unique('g')}`;
      await ok(call('PUT', group, { token: u.token }));
      await ok(call('PUT', `${group}/profile/picture/image`, { token: u.token, body: PNG, type: 'image/png' }));
      return call('GET', `${group}/profile/picture/image`, { token: u.token });
    },
  },
];

describe('routes serving stored user bytes send nosniff and a sandboxing Content-Security-Policy', () => {
  it('the helper: nosniff, and a policy with sandbox and default-src none', () => {
    expect(USER_BYTES_HEADERS['X-Content-Type-Options']).toBe('nosniff');
    expect(USER_BYTES_HEADERS['Content-Security-Policy']).toMatch(/(^|;\s*)sandbox(;|$)/);
    expect(USER_BYTES_HEADERS['Content-Security-Policy']).toContain("default-src 'none'");
  });

  it.each(ROUTES.map((r) => [r.name, r] as const))('%s', async (_, route) => {
    const u = await makeUser();
    const res = await route.read(u);
    expect(res.status, await res.clone().text()).toBe(200);
    expect(res.headers.get('X-Content-Type-Options')).toBe('nosniff');
    expect(res.headers.get('Content-Security-Policy')).toBe(USER_BYTES_HEADERS['Content-Security-Policy']);
    await res.body?.cancel();
  });
});
