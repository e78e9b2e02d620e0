import { beforeAll, describe, expect, it } from 'vitest';
import { call, makeUser, type TestUser } from '../helpers';
import { groupWith, makeJob, newestRun, trigger, waitStatus } from './fixtures';

let owner: TestUser, executor: TestUser, reader: TestUser, publicReader: TestUser, stranger: TestUser;
let run: string;
const job = 'shared_job';
const own = `/v1/code/jobs/${job}`;
let via: string;
const slow = 'shared_slow';

/** A live run of the slow job triggered by `token`; answers the pending data call and the run. */
async function live(token: string) {
  const base = `/v1/users/${owner.username}/code/jobs/${slow}`;
  const before =
    ((await (await call('GET', `${base}/runs`, { token: owner.token })).json()) as { name: string }[])[0]?.name ?? '';
  const data = trigger(token, base);
  let run = before;
  for (let i = 0; i < 200 && run === before; i++) run = await newestRun(owner.token, slow);
  await waitStatus(owner.token, base, run, (st) => st === 'processing');
  return { data, run, base };
}

beforeAll(async () => {
  owner = await makeUser({ profile_public: true });
  [executor, reader, publicReader, stranger] = await Promise.all([makeUser(), makeUser(), makeUser(), makeUser()]);
  await makeJob(owner, job, `export default { async run() { return 'ok'; } }`);
  const xref = await groupWith(owner, executor, 'admins');
  const rref = await groupWith(owner, reader, 'members');
  await makeJob(
    owner,
    slow,
    `export default { async run(i, ctx) { await new Promise((res, rej) => { ctx.signal.addEventListener('abort', () => rej(ctx.signal.reason)); setTimeout(res, 20000); }); } }`,
  );
  for (const j of [job, slow]) {
    for (const entry of [xref, rref, 'public'])
      expect((await call('PUT', `/v1/code/jobs/${j}/shared/${entry}`, { token: owner.token })).status).toBe(201);
  }
  run = (await trigger(owner.token, own)).headers.get('X-Run-Id')!;
  via = `/v1/users/${owner.username}/code/jobs/${job}`;
});

describe('permission matrix for runs', () => {
  it('owner: triggers, reads, cancels', async () => {
    expect((await trigger(owner.token, own)).status).toBe(200);
    expect((await call('GET', `${own}/runs/${run}/log`, { token: owner.token })).status).toBe(200);
    const { data, run: r } = await live(owner.token);
    expect(
      (await call('POST', `/v1/code/jobs/${slow}/runs/${r}/status`, { token: owner.token, text: 'canceled' })).status,
    ).toBe(202);
    expect((await data).status).toBe(409);
  });
  it('execute grantee cancels a live run (202), also one the owner started', async () => {
    const mine = await live(executor.token);
    expect(
      (await call('POST', `${mine.base}/runs/${mine.run}/status`, { token: executor.token, text: 'canceled' })).status,
    ).toBe(202);
    expect((await mine.data).status).toBe(409);
    const owners = await live(owner.token);
    expect(
      (await call('POST', `${owners.base}/runs/${owners.run}/status`, { token: executor.token, text: 'canceled' }))
        .status,
    ).toBe(202);
    expect((await owners.data).status).toBe(409);
  });
  it('read grantee, public viewer and anonymous caller cannot cancel a live run (403, 403, 401): it stays processing', async () => {
    const { data, run: r, base } = await live(owner.token);
    expect((await call('POST', `${base}/runs/${r}/status`, { token: reader.token, text: 'canceled' })).status).toBe(
      403,
    );
    expect(
      (await call('POST', `${base}/runs/${r}/status`, { token: publicReader.token, text: 'canceled' })).status,
    ).toBe(403);
    expect((await call('POST', `${base}/runs/${r}/status`, { text: 'canceled' })).status).toBe(401);
    expect(await (await call('GET', `${base}/runs/${r}/status`, { token: owner.token })).text()).toBe('processing');
    await call('POST', `${base}/runs/${r}/status`, { token: owner.token, text: 'canceled' });
    await data;
  });
  it('a stranger who sees the job only through its public share cannot trigger it: 403 and a rejected run (never started) for the owner to see', async () => {
    const res = await trigger(publicReader.token, via);
    expect(res.status).toBe(403);
    const { run: rejected } = (await res.json()) as { run: string };
    const stats = (await (
      await call('GET', `${own}/runs/${rejected}/stats`, {
        token: owner.token,
        headers: { Accept: 'application/json' },
      })
    ).json()) as Record<string, unknown>;
    expect(stats).toMatchObject({ status: 'rejected', created_by: publicReader.username, has_output: false });
    expect((await call('GET', `${via}/runs/${rejected}/status`, { token: publicReader.token })).status).toBe(403);
  });
  it('execute grantee (admins of a sharing group) triggers at /v1/users/:owner/code/jobs/:job/data and reads runs', async () => {
    const res = await trigger(executor.token, via);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('ok');
    const r = res.headers.get('X-Run-Id')!;
    const stats = (await (
      await call('GET', `${via}/runs/${r}/stats`, { token: executor.token, headers: { Accept: 'application/json' } })
    ).json()) as { created_by: string };
    expect(stats.created_by).toBe(executor.username);
    expect((await call('POST', `${via}/runs/${r}/status`, { token: executor.token, text: 'canceled' })).status).toBe(
      409,
    );
  });
  it('read grantee reads runs but may not trigger (403, a rejected run is recorded) nor cancel (403)', async () => {
    expect((await call('GET', `${via}/runs`, { token: reader.token })).status).toBe(200);
    expect((await call('GET', `${via}/runs/${run}/output`, { token: reader.token })).status).toBe(200);
    const res = await trigger(reader.token, via);
    expect(res.status).toBe(403);
    const { run: rejected } = (await res.json()) as { run: string };
    expect(await (await call('GET', `${own}/runs/${rejected}/status`, { token: owner.token })).text()).toBe('rejected');
    expect(await (await call('GET', `${own}/runs/${rejected}/log`, { token: owner.token })).text()).toContain(
      'rejected',
    );
    expect((await call('POST', `${via}/runs/${run}/status`, { token: reader.token, text: 'canceled' })).status).toBe(
      403,
    );
  });
  it('public share: the job is visible, its runs are not (403), and it cannot be triggered', async () => {
    expect((await call('GET', via, { token: publicReader.token })).status).toBe(200);
    for (const p of ['runs', `runs/${run}/log`, `runs/${run}/output`, `runs/${run}/stats`, 'log', 'stats/runs']) {
      expect((await call('GET', `${via}/${p}`, { token: publicReader.token })).status, p).toBe(403);
    }
    expect((await trigger(publicReader.token, via)).status).toBe(403);
  });
  it('anonymous callers get 401 on runs even of a public job', async () => {
    expect((await call('GET', `${via}/runs`)).status).toBe(401);
    expect((await trigger('', via)).status).toBe(401);
  });
  it('a stranger cannot see a private job: 404', async () => {
    const s2 = await makeUser();
    await makeJob(s2, 'private_job', `export default { async run() {} }`);
    const p = `/v1/users/${s2.username}/code/jobs/private_job`;
    expect((await call('GET', `${p}/runs`, { token: stranger.token })).status).toBe(404);
    expect((await trigger(stranger.token, p)).status).toBe(404);
  });
});
