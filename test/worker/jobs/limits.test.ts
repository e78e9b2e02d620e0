/**
 * Sandbox limits, shortened for tests by JOBS_TEST_LIMITS in vitest.config.mts (see stepLimits).
 * The CPU limit is passed to the Worker Loader but local workerd does not enforce it (a
 * synchronous infinite loop there blocks the thread), so only its plumbing is tested here.
 */
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { teardownGrace } from '../../../src/jobs/run/steps';
import { stepLimits } from '../../../src/jobs/sandbox';
import { call, makeUser } from '../helpers';
import { makeJob, trigger } from './fixtures';
import { STEP_HOST } from './outbound';

const J = '/v1/code/jobs';

async function failedLog(token: string, job: string): Promise<string> {
  const res = await trigger(token, `${J}/${job}`);
  expect(res.status).toBe(502);
  const { run } = (await res.json()) as { run: string };
  expect(await (await call('GET', `${J}/${job}/runs/${run}/status`, { token })).text()).toBe('failed');
  return (await call('GET', `${J}/${job}/runs/${run}/log`, { token })).text();
}

describe('sandbox limits', () => {
  it('the tests run with short limits (the production ones are 30 s CPU, 15 min wall)', () => {
    expect(stepLimits(env)).toEqual({ cpuMs: 2000, wallMs: 12000 });
    expect(stepLimits({} as Env)).toEqual({ cpuMs: 30_000, wallMs: 15 * 60_000 });
    expect(stepLimits({ JOBS_TEST_LIMITS: 'x,-1' } as unknown as Env)).toEqual({ cpuMs: 30_000, wallMs: 15 * 60_000 });
  });
  it('the tests run with a longer cancel grace (3 s; production 1 s) so nested teardowns fit on a loaded machine', () => {
    expect(teardownGrace(env)).toBe(3000);
    expect(teardownGrace({} as Env)).toBe(1000);
    expect(teardownGrace({ JOBS_TEST_GRACE_MS: '-5' } as unknown as Env)).toBe(1000);
  });
  it('a step that outlives the wall-time limit fails the run with a log line naming the limit', async () => {
    const u = await makeUser();
    await makeJob(u, 'sleepy', `export default { async run() { await new Promise((r) => setTimeout(r, 60_000)); } }`);
    const log = await failedLog(u.token, 'sleepy');
    expect(log).toContain('the step ran longer than its wall-time limit of 12 s');
  }, 30_000);
  it('fetch is refused without config/network and allowed with it', async () => {
    const u = await makeUser();
    const code = `export default { async run() { try { const r = await fetch('https://${STEP_HOST}/fail'); return 'reached ' + r.status; } catch (e) { return 'refused'; } } }`;
    await makeJob(u, 'offline', code);
    expect(await (await trigger(u.token, `${J}/offline`)).text()).toBe('refused');
    await makeJob(u, 'online', code, { 'config/network': 'true' });
    expect(await (await trigger(u.token, `${J}/online`)).text()).toBe('reached 500');
  });
});
