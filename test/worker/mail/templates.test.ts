/**
 * config/template: a document (`/u/<user>/d/<doc>` or a document of the mail's owner)
 * whose content wraps the mail's content at `{{ content }}`, before composing; a write
 * naming an unknown document, or one the writer may not read, answers 400 and stores
 * nothing; a template gone by send time leaves the content unwrapped and is logged.
 * Through the real Worker (D1, R2, the MailObject and the outbox).
 */
import { describe, expect, it, vi } from 'vitest';
import { call, unique, type TestUser } from '../helpers';
import { makeGroup } from '../docs/fixtures';
import { logOf, newMail, outboxTo, post, sender, untilReady } from './fixtures';

vi.setConfig({ testTimeout: 120_000 });

const write = (u: TestUser, path: string, text: string) => call('POST', path, { token: u.token, text });

/** A document of `u` with `content`. */
async function doc(u: TestUser, content: string): Promise<string> {
  const name = unique('t').replace(/[^a-z0-9_]/g, '_');
  expect((await call('PUT', `/v1/vis/docs/${name}`, { token: u.token })).status).toBe(201);
  expect((await write(u, `/v1/vis/docs/${name}/content`, content)).status).toBe(204);
  return name;
}

/** The one message `to` got from a send of `path`. */
async function sendTo(u: TestUser, path: string, to: string) {
  expect((await post(u, path, { json: { to: [to] } })).status).toBe(202);
  await untilReady(u, path);
  const [m] = await outboxTo(to);
  return m!;
}

describe('mail templates (config/template)', () => {
  it('a document of the owner named by its name wraps the content at {{ content }}, in the HTML and the text', async () => {
    const u = await sender();
    const tpl = await doc(u, '# Acme header\n\n{{ content }}\n\nAcme footer, 1 Main St');
    const m = await newMail(u, { content: 'The **body** of the news', 'config/template': tpl });
    const to = `${unique('w')}@example.com`;
    const sent = await sendTo(u, m.path, to);
    expect(sent.text).toMatch(/Acme header[\s\S]*The body of the news[\s\S]*Acme footer, 1 Main St/);
    expect(sent.html).toMatch(/<h1[^>]*>Acme header<\/h1>[\s\S]*<strong>body<\/strong>[\s\S]*Acme footer/);
  });

  it('/u/<user>/d/<doc> of another user the writer may read works; the content is placed once, as written', async () => {
    const org = await sender();
    const u = await sender();
    const tpl = await doc(org, 'Header of the org\n\n{{content}}\n\n{{ content }}');
    const team = (await makeGroup(org, [{ user: u }])).ref;
    expect((await call('PUT', `/v1/vis/docs/${tpl}/shared/${team}`, { token: org.token })).status).toBe(201);
    const m = await newMail(u, { content: 'costs $& and $1', 'config/template': `/u/${org.username}/d/${tpl}` });
    const sent = await sendTo(u, m.path, `${unique('w')}@example.com`);
    expect(sent.text).toMatch(/Header of the org[\s\S]*costs \$& and \$1/);
    // At the first placeholder only: the second is dropped, never a second copy of the content.
    expect(sent.text.split('costs $& and $1')).toHaveLength(2);
    expect(sent.text).not.toMatch(/\{\{\s*content\s*\}\}/);
  });

  it('an unknown template answers 400 on write and stores nothing', async () => {
    const u = await sender();
    const m = await newMail(u);
    for (const bad of ['no_such_doc', `/u/${u.username}/d/nope`, '/u/nobody_here/d/x', '/u/Bad Name/d/x', '/x/y']) {
      const res = await write(u, `${m.path}/config/template`, bad);
      expect(res.status, bad).toBe(400);
    }
    expect(await (await call('GET', `${m.path}/config/template`, { token: u.token })).text()).toBe('');
  });

  it("a template the writer may not read answers 400 on write: another user's private document, for owner and grantee", async () => {
    const owner = await sender();
    const grantee = await sender();
    const stranger = await sender();
    const secret = await doc(stranger, 'private {{ content }}');
    const own = await doc(owner, 'owner only {{ content }}');
    const m = await newMail(owner);
    const res = await write(owner, `${m.path}/config/template`, `/u/${stranger.username}/d/${secret}`);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { message: string }).message).toBe(
      `invalid config/template: no document /u/${stranger.username}/d/${secret} readable by ${owner.username}`,
    );
    // A grantee with write access may not name the owner's private document (the send would read it as the owner).
    const crew = (await makeGroup(owner, [{ user: grantee }])).ref;
    expect((await call('PUT', `${m.path}/shared/${crew}~rw`, { token: owner.token })).status).toBe(201);
    const shared = `/v1/users/${owner.username}/vis/mails/${m.name}`;
    expect((await write(grantee, `${shared}/config/template`, `/u/${owner.username}/d/${own}`)).status).toBe(400);
    // The owner may.
    expect((await write(owner, `${m.path}/config/template`, own)).status).toBe(204);
  });

  it("a grantee's template may not name what the grantee cannot read: its content's references are checked", async () => {
    const owner = await sender();
    const grantee = await sender();
    const secret = await doc(owner, '# secret');
    expect((await call('PUT', `/v1/vis/docs/${secret}/vars/v`, { token: owner.token })).status).toBe(201);
    const ref = `{/u/${owner.username}/d/${secret}/v/v}`;
    // The grantee's own document, naming a variable of the owner's private document.
    const tpl = await doc(grantee, `${ref}\n\n{{ content }}`);
    const m = await newMail(owner);
    const crew = (await makeGroup(owner, [{ user: grantee }])).ref;
    expect((await call('PUT', `${m.path}/shared/${crew}~rw`, { token: owner.token })).status).toBe(201);
    const shared = `/v1/users/${owner.username}/vis/mails/${m.name}`;
    const res = await write(grantee, `${shared}/config/template`, `/u/${grantee.username}/d/${tpl}`);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { message: string }).message).toBe(
      `config/template: ${ref} (in the template) is not readable by ${grantee.username}`,
    );
    // A template without such references is accepted from the grantee (they read it, and so must the owner at send time).
    const plain = await doc(grantee, 'Plain {{ content }}');
    expect((await write(grantee, `${shared}/config/template`, `/u/${grantee.username}/d/${plain}`)).status).toBe(204);
  });

  it('a template gone by send time: the mail is sent without it and the log says so', async () => {
    const u = await sender();
    const tpl = await doc(u, 'Wrapped {{ content }}');
    const m = await newMail(u, { content: 'Plain body', 'config/template': tpl });
    expect((await call('DELETE', `/v1/vis/docs/${tpl}`, { token: u.token })).status).toBe(204);
    const sent = await sendTo(u, m.path, `${unique('w')}@example.com`);
    expect(sent.text).toContain('Plain body');
    expect(sent.text).not.toContain('Wrapped');
    expect(
      (await logOf(u, m.path)).some((l) => l.includes(`template /u/${u.username}/d/${tpl}: no such document`)),
    ).toBe(true);
  });
});
