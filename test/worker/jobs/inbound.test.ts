import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { handleInbound, handleInboundEmail } from '../../../src/jobs/inbound';
import { call, unique } from '../helpers';
import { makeJob, newestRun, waitStatus } from './fixtures';
import { mailGroup, rawMail as raw, repliesTo } from './mail-fixtures';

const J = '/v1/code/jobs';

describe('inbound mail', () => {
  it("a member's mail runs every job shared with the group with input.json plus attachments, and the reply carries the output", async () => {
    const g = await mailGroup();
    await makeJob(
      g.owner,
      'mailjob',
      `export default { async run(input) { const j = JSON.parse(await input[0].text()); return j.subject + '|' + j.from + '|' + input.map((f) => f.name).join(','); } }`,
    );
    expect((await call('PUT', `${J}/mailjob/shared/+${g.org}~sales`, { token: g.owner.token })).status).toBe(201);
    expect(await handleInbound(env, raw(g.email, g.address, 'Numbers'), g.email, g.address)).toBe('accepted');
    const replies = await repliesTo(g.email);
    expect(replies).toHaveLength(1);
    expect(replies[0]!.subject).toBe('Re: Numbers');
    expect(replies[0]!.attachments).toEqual([
      { filename: 'output.txt', content_type: 'text/plain; charset=utf-8', size: expect.any(Number) },
    ]);
    // The reply is the job owner's message: its outbox row goes when that account is deleted.
    const owner = await env.DB.prepare(
      "select o.owner_id, u.username from outbox o left join users u on u.id = o.owner_id where o.kind = 'reply' and o.recipients like ?",
    )
      .bind(`%${g.email}%`)
      .all<{ username: string | null }>();
    expect(owner.results.map((r) => r.username)).toEqual([g.owner.username]);
    const runs = (await (await call('GET', `${J}/mailjob/runs`, { token: g.owner.token })).json()) as {
      name: string;
    }[];
    const stats = (await (
      await call('GET', `${J}/mailjob/runs/${runs[0]!.name}/stats`, {
        token: g.owner.token,
        headers: { Accept: 'application/json' },
      })
    ).json()) as Record<string, unknown>;
    expect(stats).toMatchObject({
      trigger: 'email',
      source: 'email',
      created_by: g.member.username,
      status: 'success',
    });
    const out = await (await call('GET', `${J}/mailjob/runs/${runs[0]!.name}/output`, { token: g.owner.token })).text();
    expect(out).toBe(`Numbers|${g.email}|input.json,rows.csv`);
  });
  it("a non-member's mail records a rejected run (never started) and gets a reply saying so", async () => {
    const g = await mailGroup();
    await makeJob(g.owner, 'mailjob', `export default { async run() { return 'x'; } }`);
    await call('PUT', `${J}/mailjob/shared/+${g.org}~sales`, { token: g.owner.token });
    const stranger = `${unique('s')}@example.com`;
    expect(await handleInbound(env, raw(stranger, g.address, 'Hi'), stranger, g.address)).toBe('rejected');
    const runs = (await (await call('GET', `${J}/mailjob/runs`, { token: g.owner.token })).json()) as {
      name: string;
    }[];
    expect(runs).toHaveLength(1);
    expect(
      await (await call('GET', `${J}/mailjob/runs/${runs[0]!.name}/status`, { token: g.owner.token })).text(),
    ).toBe('rejected');
    const replies = await repliesTo(stranger);
    expect(replies).toHaveLength(1);
    expect(replies[0]!.text).toContain('rejected');
  });
  it("a failing job's reply names the failure", async () => {
    const g = await mailGroup();
    await makeJob(g.owner, 'mailfail', `export default { async run() { throw new Error('bad sheet'); } }`);
    await call('PUT', `${J}/mailfail/shared/+${g.org}~sales`, { token: g.owner.token });
    await handleInbound(env, raw(g.email, g.address, 'Go'), g.email, g.address);
    const replies = await repliesTo(g.email);
    expect(replies[0]!.text).toMatch(/failed: bad sheet/);
    expect(replies[0]!.attachments).toEqual([]);
  });
  it('an address no group accepts is unknown (the handler rejects the message)', async () => {
    expect(
      await handleInbound(env, raw('a@b.c', 'nobody@nowhere.example', 'x'), 'a@b.c', 'nobody@nowhere.example'),
    ).toBe('unknown');
  });
  it("a canceled run's reply names the cancel", async () => {
    const g = await mailGroup();
    await makeJob(
      g.owner,
      'mailcancel',
      `export default { async run(i, ctx) { await new Promise((res, rej) => { ctx.signal.addEventListener('abort', () => rej(ctx.signal.reason)); setTimeout(res, 20000); }); } }`,
    );
    await call('PUT', `${J}/mailcancel/shared/+${g.org}~sales`, { token: g.owner.token });
    const handled = handleInbound(env, raw(g.email, g.address, 'Stop me'), g.email, g.address);
    const run = await newestRun(g.owner.token, 'mailcancel');
    await waitStatus(g.owner.token, `${J}/mailcancel`, run, (s) => s === 'processing');
    expect(
      (await call('POST', `${J}/mailcancel/runs/${run}/status`, { token: g.owner.token, text: 'canceled' })).status,
    ).toBe(202);
    expect(await handled).toBe('accepted');
    const replies = await repliesTo(g.email);
    expect(replies).toHaveLength(1);
    expect(replies[0]!.text).toBe(`Run ${run} of job mailcancel was canceled: no output.`);
    expect(replies[0]!.attachments).toEqual([]);
  });
  it('a message the MIME parser refuses is rejected cleanly: no run, no reply, the SMTP answer says why', async () => {
    const g = await mailGroup();
    await makeJob(g.owner, 'mailbad', `export default { async run() { return 'x'; } }`);
    await call('PUT', `${J}/mailbad/shared/+${g.org}~sales`, { token: g.owner.token });
    // postal-mime refuses headers over 2 MiB
    const huge = new TextEncoder().encode(
      `From: ${g.email}\r\nTo: ${g.address}\r\nX-Pad: ${'a'.repeat(2.2 * 1024 * 1024)}\r\nSubject: x\r\n\r\nbody\r\n`,
    );
    let rejected = '';
    const message = {
      from: g.email,
      to: g.address,
      raw: new Response(huge).body!,
      rawSize: huge.byteLength,
      headers: new Headers(),
      setReject: (reason: string) => void (rejected = reason),
    } as unknown as ForwardableEmailMessage;
    await handleInboundEmail(message, env, {} as ExecutionContext);
    expect(rejected).toContain('could not be parsed');
    expect(await (await call('GET', `${J}/mailbad/runs`, { token: g.owner.token })).json()).toEqual([]);
    expect(await repliesTo(g.email)).toEqual([]);
  });
});
