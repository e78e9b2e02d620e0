import { env } from 'cloudflare:workers';
import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { dbFor } from '../../../src/core/context';
import { jobSchedules } from '../../../src/jobs/schema';
import { fireDue } from '../../../src/jobs/schedule';
import { resources, users } from '../../../src/db/schema';
import { call, makeUser, type TestUser } from '../helpers';
import { makeJob, newestRun, trigger, waitStatus } from './fixtures';

const J = '/v1/code/jobs';
const db = dbFor(env);

async function jobId(u: TestUser, name: string): Promise<number> {
  const row = await db
    .select({ id: resources.id })
    .from(resources)
    .innerJoin(users, eq(users.id, resources.owner_id))
    .where(and(eq(resources.name, name), eq(users.username, u.username)))
    .get();
  return row!.id;
}

const indexRow = async (id: number) =>
  (await db.select().from(jobSchedules).where(eq(jobSchedules.job_id, id)).get()) ?? null;

describe('schedules', () => {
  it('writing config/schedule indexes the next fire time; disabling or clearing removes it', async () => {
    const u = await makeUser();
    await makeJob(u, 'sched_idx', `export default { async run() {} }`, {
      'config/schedule': 'TZ=Europe/Paris 0 9 * * * # mornings',
    });
    const id = await jobId(u, 'sched_idx');
    const row = await indexRow(id);
    expect(row).not.toBeNull();
    expect(new Date(row!.next_fire).getUTCMinutes()).toBe(0);
    await call('POST', `${J}/sched_idx/config/enabled`, { token: u.token, text: 'false' });
    expect(await indexRow(id)).toBeNull();
    await call('POST', `${J}/sched_idx/config/enabled`, { token: u.token, text: 'true' });
    expect(await indexRow(id)).not.toBeNull();
    await call('DELETE', `${J}/sched_idx/config/schedule`, { token: u.token });
    expect(await indexRow(id)).toBeNull();
  });
  it('a due job starts a run with trigger schedule and source scheduler, and its next fire time moves on', async () => {
    const u = await makeUser();
    await makeJob(u, 'sched_run', `export default { async run() { return 'tick'; } }`, {
      'config/schedule': '* * * * *',
    });
    const id = await jobId(u, 'sched_run');
    const before = (await indexRow(id))!.next_fire;
    const waits: Promise<unknown>[] = [];
    const started = await fireDue(env, before, (p) => waits.push(p));
    expect(started).toContain(id);
    await Promise.all(waits);
    const run = await newestRun(u.token, 'sched_run');
    await waitStatus(u.token, `${J}/sched_run`, run, (s) => s === 'success');
    const stats = (await (
      await call('GET', `${J}/sched_run/runs/${run}/stats`, { token: u.token, headers: { Accept: 'application/json' } })
    ).json()) as Record<string, unknown>;
    expect(stats).toMatchObject({ trigger: 'schedule', source: 'scheduler', created_by: u.username });
    expect((await indexRow(id))!.next_fire).toBe(before + 60_000);
    // the same fire time cannot start twice (concurrent ticks claim it once)
    expect(await fireDue(env, before, () => undefined)).not.toContain(id);
  });
  it('a job that is not due does not start', async () => {
    const u = await makeUser();
    await makeJob(u, 'sched_later', `export default { async run() {} }`, { 'config/schedule': '0 0 1 1 *' });
    const id = await jobId(u, 'sched_later');
    expect(await fireDue(env, Date.now(), () => undefined)).not.toContain(id);
  });
});

describe('auto-pause', () => {
  it('the fifth consecutive failed run sets config/enabled to false and the job log says why; manual runs still work', async () => {
    const u = await makeUser();
    await makeJob(u, 'flaky', `export default { async run() { throw new Error('down'); } }`, {
      'config/schedule': '*/5 * * * *',
    });
    const id = await jobId(u, 'flaky');
    for (let i = 0; i < 4; i++) expect((await trigger(u.token, `${J}/flaky`)).status).toBe(502);
    expect(await (await call('GET', `${J}/flaky/config/enabled`, { token: u.token })).text()).toBe('true');
    expect((await trigger(u.token, `${J}/flaky`)).status).toBe(502);
    expect(await (await call('GET', `${J}/flaky/config/enabled`, { token: u.token })).text()).toBe('false');
    expect(await (await call('GET', `${J}/flaky/log`, { token: u.token })).text()).toContain(
      'job paused: 5 consecutive failed runs',
    );
    expect(await indexRow(id)).toBeNull();
    const manual = await trigger(u.token, `${J}/flaky`);
    expect(manual.status).toBe(502); // it ran (and failed again)
  });
  it('a success resets the count; canceled runs do not count', async () => {
    const u = await makeUser();
    await makeJob(
      u,
      'sometimes',
      `export default { async run(input) { const j = JSON.parse(await input[0].text()); if (j.fail) throw new Error('x'); return 'ok'; } }`,
    );
    for (let i = 0; i < 4; i++) await call('POST', `${J}/sometimes/data`, { token: u.token, json: { fail: true } });
    await call('POST', `${J}/sometimes/data`, { token: u.token, json: { fail: false } });
    for (let i = 0; i < 4; i++) await call('POST', `${J}/sometimes/data`, { token: u.token, json: { fail: true } });
    expect(await (await call('GET', `${J}/sometimes/config/enabled`, { token: u.token })).text()).toBe('true');
  });
});
