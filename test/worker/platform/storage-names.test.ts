// Every route that builds a storage key from a caller's name checks the name's rule first,
// whatever its method: a name R2 would refuse (over 1024 bytes) is a clear 4xx, never a 500.
import { describe, expect, it } from 'vitest';
import { call, makeUser, unique } from '../helpers';
import { makeJob } from '../jobs/fixtures';

const LONG = 'a'.repeat(1100);

describe('names that become storage keys', () => {
  it('an over-long asset name is a 400 on GET and DELETE of a document asset (never a 500)', async () => {
    const u = await makeUser();
    const doc = unique('d');
    expect((await call('PUT', `/v1/vis/docs/${doc}`, { token: u.token })).status).toBe(201);
    for (const name of [`${LONG}.png`, LONG, 'x'.repeat(65)]) {
      for (const method of ['GET', 'DELETE']) {
        const res = await call(method, `/v1/vis/docs/${doc}/assets/${name}`, { token: u.token });
        expect(res.status, `${method} ${name.length}`).toBe(400);
        expect(((await res.json()) as { message: string }).message).toMatch(/asset name is at most 64 characters/);
      }
    }
  });

  it("an over-long asset name is a 404 on GET (it cannot exist) and a 400 on DELETE of a mail's asset", async () => {
    const u = await makeUser();
    const mail = unique('m');
    expect((await call('PUT', `/v1/vis/mails/${mail}`, { token: u.token })).status).toBe(201);
    expect((await call('GET', `/v1/vis/mails/${mail}/assets/${LONG}.png`, { token: u.token })).status).toBe(404);
    expect((await call('DELETE', `/v1/vis/mails/${mail}/assets/${LONG}.png`, { token: u.token })).status).toBe(400);
  });

  it("an over-long or ill-formed code file name is a 400 on GET and DELETE of a job's code", async () => {
    const u = await makeUser();
    const job = await makeJob(u, unique('j'));
    for (const name of [`${LONG}.js`, '..%2Fx', '%C3%A9.js']) {
      for (const method of ['GET', 'DELETE']) {
        const res = await call(method, `/v1/code/jobs/${job}/code/${name}`, { token: u.token });
        expect(res.status, `${method} ${name.slice(0, 20)}`).toBe(400);
        expect(((await res.json()) as { message: string }).message).toMatch(/invalid code file name/);
      }
    }
  });
});
