/**
 * A job's output file names are cleaned where they leave the sandbox: a name with quotes
 * or CR/LF never reaches a download header or a reply mail's attachment raw.
 */
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { handleInbound } from '../../../src/jobs/inbound';
import { call, makeUser } from '../helpers';
import { makeJob, trigger } from './fixtures';
import { mailGroup, rawMail, repliesTo } from './mail-fixtures';

const J = '/v1/code/jobs';
const HOSTILE = `export default { async run() { return new File(['x'], 'a"\\r\\nBcc: victim@example.com\\r\\n.txt', { type: 'text/plain' }); } }`;

describe('job output file names', () => {
  it('an output name with quotes and CR/LF is cleaned before it names the download', async () => {
    const u = await makeUser();
    await makeJob(u, 'hostile', HOSTILE);
    const res = await trigger(u.token, `${J}/hostile`);
    expect(res.status).toBe(200);
    expect(res.headers.get('Content-Disposition')).toBe(
      `attachment; filename="aBcc: victim@example.com.txt"; filename*=UTF-8''aBcc%3A%20victim%40example.com.txt`,
    );
    const out = await call('GET', `${J}/hostile/runs/${res.headers.get('X-Run-Id')}/output`, { token: u.token });
    expect(out.headers.get('Content-Disposition')).toContain('filename="aBcc: victim@example.com.txt"');
  });
  it('the reply mail to a member carries the cleaned name', async () => {
    const g = await mailGroup();
    await makeJob(g.owner, 'hostile', HOSTILE);
    expect((await call('PUT', `${J}/hostile/shared/+${g.org}~sales`, { token: g.owner.token })).status).toBe(201);
    await handleInbound(env, rawMail(g.email, g.address, 'names'), g.email, g.address);
    const replies = await repliesTo(g.email);
    expect(replies).toHaveLength(1);
    expect(replies[0]!.attachments.map((a) => a.filename)).toEqual(['aBcc: victim@example.com.txt']);
  });
});
