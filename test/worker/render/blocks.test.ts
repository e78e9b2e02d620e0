/**
 * Section blocks through the real Worker: a document's canonical page and a test send's
 * outbox message (HTML and text parts), with every kind of block; the author lookup is
 * one D1 round trip for all author blocks of a content.
 */
import { env } from 'cloudflare:workers';
import { drizzle } from 'drizzle-orm/d1';
import { describe, expect, it, vi } from 'vitest';
import { resolveContent } from '../../../src/render/resolve';
import { call, makeUser, OPS, unique, type TestUser } from '../helpers';

vi.setConfig({ testTimeout: 120_000 });

/** Content with one block of each kind, written as the python library writes them. */
const everyKind = (author: string, other: string) =>
  [
    '# Weekly',
    '{{ preview }}\nThe preview line\n{{ /preview }}',
    '{{ callout\n  type: warning\n  desc: Mind the gap\n  b: l2 #cf222e\n}}\nCallout *body* text\n{{ /callout }}',
    '{{ paragraph\n  font size: l\n  font style: b\n  bg: #eeeeee\n}}\nLarge paragraph\n{{ /paragraph }}',
    `{{ author\n  username: ${author}\n  include bio: true\n  include picture: true\n}}\n{{ /author }}`,
    `{{ author\n  ${other}\n  override bio: A guest writer\n}}\n{{ /author }}`,
    `{{ attachment\n  ref: /u/${author}/d/report\n  format: pdf\n  name: The report\n}}\n{{ /attachment }}`,
    '{{ html }}\n<b>raw html</b><script>alert(1)</script>\n{{ /html }}',
    `{{ vis\n  ref: /u/${author}/p/sales\n  include title: true\n}}\n{{ /vis }}`,
    '{{ mystery\n  odd: 1\n}}\nUnknown kind body\n{{ /mystery }}',
    '{{ page\n  title: second\n}}',
    'Second page',
  ].join('\n\n');

const noSyntax = (s: string) => expect(s).not.toMatch(/\{\{|\}\}/);

async function sender(fields: Record<string, unknown> = {}): Promise<TestUser & { email: string }> {
  const email = `${unique('m')}@example.com`;
  return { ...(await makeUser({ email, email_verified: true, ...fields })), email };
}

describe('section blocks in documents', () => {
  it('an author block shows the profile name and bio the user set at admin/profile/name and bio', async () => {
    const u = await makeUser();
    const writer = await makeUser({ profile_public: true });
    expect((await call('POST', '/v1/admin/profile/name', { token: writer.token, text: 'Ada Lovelace' })).status).toBe(
      204,
    );
    expect((await call('POST', '/v1/admin/profile/bio', { token: writer.token, text: 'Counts <things>' })).status).toBe(
      204,
    );
    const path = '/v1/vis/docs/byline';
    expect((await call('PUT', path, { token: u.token })).status).toBe(201);
    const content = `{{ author\n  ${writer.username}\n  include bio: true\n}}\n{{ /author }}`;
    expect((await call('POST', `${path}/content`, { token: u.token, text: content })).status).toBe(204);
    const html = await (await call('GET', `/u/${u.username}/d/byline`, { token: u.token })).text();
    const body = html.slice(html.indexOf('<body'));
    noSyntax(body);
    expect(body).toContain('<strong>Ada Lovelace</strong>');
    expect(body).toContain(`@${writer.username}`);
    expect(body).toContain('Counts &lt;things&gt;');
  });

  it('the canonical page renders each kind; preview is ignored; no block syntax reaches the reader', async () => {
    const u = await makeUser();
    const other = await makeUser({ profile_public: true });
    const path = '/v1/vis/docs/weekly';
    expect((await call('PUT', path, { token: u.token })).status).toBe(201);
    expect(
      (await call('POST', `${path}/content`, { token: u.token, text: everyKind(u.username, other.username) })).status,
    ).toBe(204);
    const res = await call('GET', `/u/${u.username}/d/weekly`, { token: u.token });
    expect(res.status).toBe(200);
    const html = await res.text();
    const body = html.slice(html.indexOf('<body'));
    noSyntax(body);
    expect(body).not.toContain('The preview line');
    expect(body).toMatch(/class="sb sb-callout sb-callout-warning sb-s\d+"/);
    expect(body).toContain('Mind the gap');
    expect(body).toContain('Callout <em>body</em> text');
    expect(body).toContain('Large paragraph');
    expect(body).toContain(`<strong>${u.username}</strong>`);
    expect(body).toContain('A guest writer');
    expect(body).toContain(`<a href="/u/${u.username}/d/report">The report</a>`);
    expect(body).toContain('<b>raw html</b>');
    expect(body).not.toContain('<script');
    expect(body).toContain(`/u/${u.username}/p/sales`);
    expect(body).toContain('Unknown kind body');
    expect(body).not.toMatch(/mystery|odd/);
    expect(body.match(/<section class="page"/g)).toHaveLength(2);
    // The block styles are classes in the hashed style element: the strict CSP still holds.
    expect(body).not.toMatch(/ style="/);
    expect(html).toMatch(/\.sb\.sb-s\d+\{border-left:2px solid #cf222e\}/);
    expect(res.headers.get('Content-Security-Policy')).toMatch(/style-src 'sha256-/);
  });

  it('author blocks resolve in one D1 round trip, whatever their number; private profiles of others stay private', async () => {
    const owner = await makeUser();
    const pub = await makeUser({ profile_public: true });
    const priv = await makeUser();
    let trips = 0;
    const counting = new Proxy(env.DB, {
      get(target, prop) {
        const v = Reflect.get(target, prop) as unknown;
        if (prop === 'batch') return (s: D1PreparedStatement[]) => (trips++, target.batch(s));
        if (prop === 'prepare')
          return (sql: string) => {
            const stmt = target.prepare(sql);
            // A statement run on its own (not in a batch) is a round trip too.
            return new Proxy(stmt, {
              get(t, p) {
                const f = Reflect.get(t, p) as unknown;
                if (typeof f !== 'function') return f;
                const bound = (f as (...a: unknown[]) => unknown).bind(t);
                return ['all', 'first', 'run', 'raw'].includes(p as string)
                  ? (...a: unknown[]) => (trips++, bound(...a))
                  : bound;
              },
            });
          };
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      },
    });
    const db = drizzle(counting);
    const row = (await env.DB.prepare('select * from users where username = ?').bind(owner.username).first()) as never;
    const scope = { env, db: db as never, owner: row, resource: { id: 0, kind: 'mail', name: 'x' } as never };
    const piece = (text: string) => ({
      path: 'mail.content' as const,
      text,
      principals: () => [(row as { id: number }).id],
    });
    const many = Array.from(
      { length: 30 },
      (_, i) => `{{ author\n  ${[owner.username, pub.username, priv.username][i % 3]}\n}}\n{{ /author }}`,
    ).join('\n\n');
    const { profiles } = await resolveContent(scope, [piece(many)]);
    expect(trips).toBe(1);
    expect([...profiles.keys()].sort()).toEqual([owner.username, pub.username].sort());
    trips = 0;
    expect((await resolveContent(scope, [piece('# no blocks')])).profiles.size).toBe(0);
    expect(trips).toBe(0);
  });
});

describe('section blocks in e-mails', () => {
  it('a test send: preview as the hidden preheader, absent from the text part; blocks rendered with inline styles; no block syntax', async () => {
    const u = await sender();
    const other = await makeUser({ profile_public: true });
    const name = unique('m');
    const path = `/v1/vis/mails/${name}`;
    expect((await call('PUT', path, { token: u.token })).status).toBe(201);
    expect(
      (await call('POST', `${path}/content`, { token: u.token, text: everyKind(u.username, other.username) })).status,
    ).toBe(204);
    expect((await call('POST', `${path}/subject`, { token: u.token, text: 'Blocks' })).status).toBe(204);
    expect((await call('POST', `${path}/status`, { token: u.token, text: 'test' })).status).toBe(202);
    let sent: { to: string[]; subject: string; html: string; text: string }[] = [];
    for (let i = 0; i < 600 && !sent.length; i++) {
      const all = (await (await call('GET', '/v1/ops/outbox', { token: OPS })).json()) as typeof sent;
      sent = all.filter((m) => m.to.includes(u.email.toLowerCase()) && m.subject === 'Blocks');
      if (!sent.length) await new Promise((r) => setTimeout(r, 50));
    }
    expect(sent).toHaveLength(1);
    const { html, text } = sent[0]!;
    noSyntax(html);
    noSyntax(text);
    // The preheader: first in the body, hidden, holding the preview text only.
    expect(html).toMatch(/<body[^>]*><div class="preheader" style="display:none;[^"]*">The preview line/);
    expect(html.split('The preview line')).toHaveLength(2);
    expect(text).not.toContain('The preview line');
    // The callout: a coloured box with icon and title, styled inline.
    // (a one-cell table: Outlook pads and fills table cells, not divs)
    expect(html).toMatch(
      /<table role="presentation" class="sb sb-callout sb-callout-warning"[^>]*><tr><td style="[^"]*background-color:#fff8c5;[^"]*border-left:2px solid #cf222e/,
    );
    expect(html).toContain('Mind the gap');
    expect(text).toContain('⚠ Mind the gap');
    expect(text).toContain('Callout body text');
    expect(html).toMatch(/style="[^"]*font-size:1.25em;font-weight:700;background-color:#eeeeee/);
    expect(text).toContain(u.username);
    expect(text).toContain('A guest writer');
    expect(html).toContain(`href="${env.PUBLIC_ORIGIN}/u/${u.username}/d/report"`);
    expect(html).toContain('<b>raw html</b>');
    expect(html).not.toContain('<script');
    expect(text).toContain('Unknown kind body');
    expect(text).toContain('Second page');
  });

  it('attachment blocks attach the rendered PDF of documents the owner may read; others keep only their link and are logged', async () => {
    const u = await sender();
    const stranger = await makeUser();
    expect((await call('PUT', '/v1/vis/docs/q3', { token: u.token })).status).toBe(201);
    expect((await call('POST', '/v1/vis/docs/q3/content', { token: u.token, text: '# Q3\n\nNumbers.' })).status).toBe(
      204,
    );
    expect((await call('PUT', '/v1/vis/docs/secret', { token: stranger.token })).status).toBe(201);
    const name = unique('m');
    const path = `/v1/vis/mails/${name}`;
    expect((await call('PUT', path, { token: u.token })).status).toBe(201);
    const content = `{{ attachment\n  ref: /u/${u.username}/d/q3\n  format: pdf\n  name: Q3 report\n}}\n{{ /attachment }}\n\n{{ attachment\n  /u/${stranger.username}/d/secret\n}}\n{{ /attachment }}`;
    expect((await call('POST', `${path}/content`, { token: u.token, text: content })).status).toBe(204);
    expect((await call('POST', `${path}/subject`, { token: u.token, text: 'Attached' })).status).toBe(204);
    expect((await call('POST', `${path}/status`, { token: u.token, text: 'test' })).status).toBe(202);
    type Sent = {
      to: string[];
      subject: string;
      html: string;
      attachments: { filename: string; content_type: string; size: number }[];
    };
    let sent: Sent[] = [];
    for (let i = 0; i < 1200 && !sent.length; i++) {
      const all = (await (await call('GET', '/v1/ops/outbox', { token: OPS })).json()) as Sent[];
      sent = all.filter((m) => m.to.includes(u.email.toLowerCase()) && m.subject === 'Attached');
      if (!sent.length) await new Promise((r) => setTimeout(r, 100));
    }
    expect(sent).toHaveLength(1);
    expect(sent[0]!.attachments).toHaveLength(1);
    expect(sent[0]!.attachments[0]).toMatchObject({ filename: 'Q3 report.pdf', content_type: 'application/pdf' });
    expect(sent[0]!.attachments[0]!.size).toBeGreaterThan(500);
    expect(sent[0]!.html).toContain(`/u/${stranger.username}/d/secret`);
    const log = (
      (await (
        await call('GET', `${path}/log`, { token: u.token, headers: { Accept: 'application/json' } })
      ).json()) as { message: string }[]
    ).map((e) => e.message);
    expect(log.some((l) => l.includes(`attachment /u/${stranger.username}/d/secret: no such document readable`))).toBe(
      true,
    );
  });
});
