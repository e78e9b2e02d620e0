import { afterAll, describe, expect, it } from 'vitest';
import { base, http, makeUser, opsToken, unique, type E2EUser } from './harness';

const J = '/v1/code/jobs';

async function job(u: E2EUser, name: string, code?: string, entries: Record<string, string> = {}) {
  expect((await http('PUT', `${J}/${name}`, { token: u.token })).status).toBe(201);
  if (code)
    expect(
      (await http('POST', `${J}/${name}/code/index.js`, { token: u.token, body: code, type: 'text/javascript' }))
        .status,
    ).toBe(204);
  for (const [p, v] of Object.entries(entries))
    expect((await http('POST', `${J}/${name}/${p}`, { token: u.token, text: v })).status).toBe(204);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function runs(u: E2EUser, name: string): Promise<{ name: string }[]> {
  return (await (await http('GET', `${J}/${name}/runs`, { token: u.token })).json()) as { name: string }[];
}

const ok = async (r: Promise<Response>) => expect((await r).status).toBeLessThan(300);

/** An organisation group that accepts inbound mail, with one accepted member whose address is verified. */
async function mailGroup() {
  const owner = await makeUser({ account: 'organisation' });
  const org = unique('o').slice(0, 20);
  await ok(http('PUT', `/v1/admin/orgs/${org}`, { token: owner.token }));
  await ok(http('PUT', `/v1/admin/orgs/${org}/groups/ops`, { token: owner.token }));
  await ok(http('POST', `/v1/admin/orgs/${org}/profile/options/enable_subdomain`, { token: owner.token, text: 'yes' }));
  await ok(
    http('POST', `/v1/admin/orgs/${org}/groups/ops/profile/options/allow_inbound_mail`, {
      token: owner.token,
      text: 'yes',
    }),
  );
  const email = `${unique('m')}@example.com`;
  const member = await makeUser({ email, email_verified: true });
  await ok(http('PUT', `/v1/admin/orgs/${org}/groups/ops/roles/members/${member.username}`, { token: owner.token }));
  await ok(http('POST', `/v1/admin/invites/+${org}~ops/accept`, { token: member.token, text: 'yes' }));
  const address = (await (await http('GET', `/v1/orgs/${org}/groups/ops/email`, { token: owner.token })).text()).trim();
  expect(address).toContain(`ops@${org}.`);
  return { owner, org, email, address };
}

/**
 * Sends a message as Cloudflare Email Routing hands it over: with its receiver's
 * Authentication-Results on top (DKIM and SPF passed for the From domain). Replies go
 * only to senders so authenticated.
 */
async function sendMail(from: string, to: string, subject: string): Promise<void> {
  const domain = from.slice(from.lastIndexOf('@') + 1);
  const auth = `Authentication-Results: mx.cloudflare.net; dkim=pass header.d=${domain} header.s=s1; spf=pass smtp.mailfrom=${from}`;
  const raw = [
    auth,
    `From: ${from}`,
    `To: ${to}`,
    `Subject: ${subject}`,
    `Message-ID: <${unique('id')}@example.com>`,
    'Content-Type: text/plain',
    '',
    'numbers please',
    '',
  ].join('\r\n');
  const sent = await fetch(
    `${base()}/cdn-cgi/handler/email?from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`,
    { method: 'POST', body: raw },
  );
  expect(sent.status).toBeLessThan(300);
}

type Reply = { kind: string; to: string[]; text: string; attachments: { filename: string }[] };

async function repliesTo(email: string): Promise<Reply[]> {
  let replies: Reply[] = [];
  for (let i = 0; i < 100 && !replies.length; i++) {
    const all = (await (await http('GET', '/v1/ops/outbox', { token: opsToken() })).json()) as Reply[];
    replies = all.filter((m) => m.kind === 'reply' && m.to.includes(email));
    if (!replies.length) await sleep(50);
  }
  return replies;
}

afterAll(async () => {
  await http('POST', '/v1/ops/clock', { token: opsToken(), json: { offset_ms: 0 } });
});

describe('job runs over HTTP (real server, Worker Loader sandbox)', () => {
  it('POST data runs the code in a sandbox and answers the output with X-Run-Id', async () => {
    const u = await makeUser();
    await job(
      u,
      'hello',
      `export default { async run(input, ctx) { ctx.log('hi'); return { got: JSON.parse(await input[0].text()) }; } }`,
    );
    const res = await http('POST', `${J}/hello/data`, { token: u.token, json: { x: 1 } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ got: { x: 1 } });
    const run = res.headers.get('X-Run-Id')!;
    expect(await (await http('GET', `${J}/hello/runs/${run}/status`, { token: u.token })).text()).toBe('success');
  });
  it('cancel over HTTP: 202, the blocked data call answers 409, status canceled', async () => {
    const u = await makeUser();
    await job(
      u,
      'slow',
      `export default { async run(i, ctx) { await new Promise((res, rej) => { ctx.signal.addEventListener('abort', () => rej(ctx.signal.reason)); setTimeout(res, 20000); }); } }`,
    );
    const data = http('POST', `${J}/slow/data`, { token: u.token, json: {} });
    let list: { name: string }[] = [];
    while (!list.length) list = await runs(u, 'slow');
    const run = list[0]!.name;
    while ((await (await http('GET', `${J}/slow/runs/${run}/status`, { token: u.token })).text()) !== 'processing')
      await sleep(20);
    expect((await http('POST', `${J}/slow/runs/${run}/status`, { token: u.token, text: 'canceled' })).status).toBe(202);
    const blocked = await data;
    if (blocked.status !== 409)
      console.log(
        'BLOCKED',
        blocked.status,
        await blocked.text(),
        await (await http('GET', `${J}/slow/runs/${run}/log`, { token: u.token })).text(),
      );
    expect(blocked.status).toBe(409);
    expect(await (await http('GET', `${J}/slow/runs/${run}/status`, { token: u.token })).text()).toBe('canceled');
  });
  it('a live tail over SSE delivers log lines while the run runs', async () => {
    const u = await makeUser();
    await job(
      u,
      'tail',
      `export default { async run(i, ctx) { for (let n = 0; n < 3; n++) { ctx.log('line ' + n); await new Promise((r) => setTimeout(r, 150)); } } }`,
    );
    const data = http('POST', `${J}/tail/data`, { token: u.token, json: {} });
    let list: { name: string }[] = [];
    while (!list.length) list = await runs(u, 'tail');
    const res = await http('GET', `${J}/tail/runs/${list[0]!.name}/log`, {
      token: u.token,
      headers: { Accept: 'text/event-stream' },
    });
    expect(res.headers.get('Content-Type')).toBe('text/event-stream');
    const text = await res.text();
    expect(text).toContain('line 2');
    expect(text).toContain('event: end');
    expect((await data).status).toBe(204);
  });
  it('cron through /__scheduled (npm start: wrangler dev --test-scheduled) starts a due run (trigger schedule, source scheduler)', async () => {
    const u = await makeUser();
    await job(u, 'cron', `export default { async run() { return 'tick'; } }`, {
      'config/schedule': '* * * * * # every minute',
    });
    // the next fire time is the next minute: move the platform clock past it
    expect((await http('POST', '/v1/ops/clock', { token: opsToken(), json: { offset_ms: 61_000 } })).status).toBe(204);
    const tick = await fetch(`${base()}/__scheduled?cron=${encodeURIComponent('* * * * *')}`);
    expect(tick.status).toBeLessThan(300);
    let list: { name: string }[] = [];
    for (let i = 0; i < 100 && !list.length; i++) {
      list = await runs(u, 'cron');
      if (!list.length) await sleep(50);
    }
    expect(list).toHaveLength(1);
    let stats: Record<string, unknown> = {};
    for (let i = 0; i < 100; i++) {
      stats = (await (
        await http('GET', `${J}/cron/runs/${list[0]!.name}/stats`, {
          token: u.token,
          headers: { Accept: 'application/json' },
        })
      ).json()) as Record<string, unknown>;
      if (stats.status === 'success') break;
      await sleep(50);
    }
    expect(stats).toMatchObject({ trigger: 'schedule', source: 'scheduler', status: 'success' });
    await http('POST', '/v1/ops/clock', { token: opsToken(), json: { offset_ms: 0 } });
  });
  it("inbound mail through /cdn-cgi/handler/email runs the group's jobs and replies with the output", async () => {
    const g = await mailGroup();
    await job(
      g.owner,
      'inbox',
      `export default { async run(input) { const j = JSON.parse(await input[0].text()); return 'subject was ' + j.subject; } }`,
    );
    await ok(http('PUT', `${J}/inbox/shared/+${g.org}~ops`, { token: g.owner.token }));
    await sendMail(g.email, g.address, 'Weekly');
    const replies = await repliesTo(g.email);
    expect(replies).toHaveLength(1);
    expect(replies[0]!.attachments.map((a) => a.filename)).toEqual(['output.txt']);
    const list = await runs(g.owner, 'inbox');
    expect(await (await http('GET', `${J}/inbox/runs/${list[0]!.name}/output`, { token: g.owner.token })).text()).toBe(
      'subject was Weekly',
    );
  });
  it('inbound mail from a sender who is not an accepted member (through /cdn-cgi/handler/email): a rejected run and a reply saying so', async () => {
    const g = await mailGroup();
    await job(g.owner, 'guarded', `export default { async run() { return 'ran'; } }`);
    await ok(http('PUT', `${J}/guarded/shared/+${g.org}~ops`, { token: g.owner.token }));
    const stranger = `${unique('s')}@example.com`;
    await sendMail(stranger, g.address, 'Let me in');
    const replies = await repliesTo(stranger);
    expect(replies).toHaveLength(1);
    expect(replies[0]!.text).toContain('rejected');
    expect(replies[0]!.attachments).toEqual([]);
    const list = await runs(g.owner, 'guarded');
    expect(list).toHaveLength(1);
    expect(
      await (await http('GET', `${J}/guarded/runs/${list[0]!.name}/status`, { token: g.owner.token })).text(),
    ).toBe('rejected');
  });
});
