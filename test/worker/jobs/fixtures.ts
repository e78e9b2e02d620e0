/** Helpers for the jobs suites: a job with code, a trigger, waiting for a run state. */
import { call, type TestUser } from '../helpers';

export async function makeJob(
  u: TestUser,
  name: string,
  code?: string,
  entries: Record<string, string> = {},
): Promise<string> {
  const res = await call('PUT', `/v1/code/jobs/${name}`, { token: u.token });
  if (res.status !== 201) throw new Error(`create job: ${res.status} ${await res.text()}`);
  if (code !== undefined) await putCode(u, name, 'index.js', code);
  for (const [path, value] of Object.entries(entries)) {
    const w = await call('POST', `/v1/code/jobs/${name}/${path}`, { token: u.token, text: value });
    if (w.status !== 204) throw new Error(`write ${path}: ${w.status} ${await w.text()}`);
  }
  return name;
}

export async function putCode(u: TestUser, job: string, file: string, code: string): Promise<void> {
  const res = await call('POST', `/v1/code/jobs/${job}/code/${file}`, {
    token: u.token,
    body: code,
    type: 'text/javascript',
  });
  if (res.status !== 204) throw new Error(`code: ${res.status} ${await res.text()}`);
}

export const trigger = (token: string, path: string, json: unknown = {}) =>
  call('POST', `${path}/data`, { token, json });

/** Polls until the job has a run (the newest) and answers its name. */
export async function newestRun(token: string, job: string, owner?: string): Promise<string> {
  const base = owner ? `/v1/users/${owner}/code/jobs/${job}` : `/v1/code/jobs/${job}`;
  for (let i = 0; i < 200; i++) {
    const res = await call('GET', `${base}/runs`, { token });
    const list = (await res.json()) as { name: string }[];
    if (list.length) return list[0]!.name;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('no run appeared');
}

export async function statusOf(token: string, base: string, run: string): Promise<string> {
  return (await call('GET', `${base}/runs/${run}/status`, { token })).text();
}

export async function waitStatus(
  token: string,
  base: string,
  run: string,
  want: (s: string) => boolean,
): Promise<string> {
  for (let i = 0; i < 300; i++) {
    const s = await statusOf(token, base, run);
    if (want(s)) return s;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`run ${run} never reached the wanted state`);
}

/** A user group of `owner` with `member` accepted in `role` (through the groups API). */
export async function groupWith(
  owner: TestUser,
  member: TestUser,
  role: 'members' | 'superusers' | 'admins' | 'founders',
  slug = `g${Math.floor(Math.random() * 1e9).toString(36)}`,
): Promise<string> {
  const c = await call('PUT', `/v1/admin/groups/${slug}`, { token: owner.token });
  if (c.status !== 201) throw new Error(`group: ${c.status} ${await c.text()}`);
  const ref = `@${owner.username}~${slug}`;
  const inv = await call('PUT', `/v1/admin/groups/${slug}/roles/${role}/${member.username}`, { token: owner.token });
  if (inv.status >= 300) throw new Error(`invite: ${inv.status} ${await inv.text()}`);
  const acc = await call('POST', `/v1/admin/invites/${ref}/accept`, { token: member.token, text: 'yes' });
  if (acc.status >= 300) throw new Error(`accept: ${acc.status} ${await acc.text()}`);
  return ref;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Creates a job, triggers it without waiting and waits until its run is processing; answers the pending data call and
 * the run.
 */
export async function startedRun(
  u: TestUser,
  job: string,
  code: string,
): Promise<{ data: Promise<Response>; run: string }> {
  await makeJob(u, job, code);
  const data = trigger(u.token, `/v1/code/jobs/${job}`);
  const run = await newestRun(u.token, job);
  await waitStatus(u.token, `/v1/code/jobs/${job}`, run, (s) => s === 'processing');
  return { data, run };
}

/** A job that ran once and succeeded: its path and the run's name. */
export async function succeededRun(u: TestUser, job: string): Promise<{ base: string; run: string }> {
  await makeJob(u, job, 'export default { async run() { return { ok: true }; } };');
  const base = `/v1/code/jobs/${job}`;
  const res = await trigger(u.token, base);
  if (res.status >= 300) throw new Error(`trigger: ${res.status} ${await res.text()}`);
  const run = await newestRun(u.token, job);
  await waitStatus(u.token, base, run, (s) => s === 'success');
  return { base, run };
}
