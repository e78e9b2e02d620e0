/** The job resource kind: its text entries and what a copy carries over. */
import { eq } from 'drizzle-orm';
import { canonicalEntries, typeWordProblem } from '../core/canonical';
import type { ResourceCtx, ResourceKind } from '../core/resource';
import { KiB } from '../core/http';
import { chainProblem } from './chains';
import { booleanProblem } from './config';
import { scheduleProblem } from './cron';
import { codePrefix } from './sandbox';
import { syncSchedule } from './schedule';
import { jobMeta } from './schema';

const resync = async (rc: ResourceCtx) => syncSchedule(rc.env, rc.db, rc.resource.id);

export const jobKind: ResourceKind = {
  kind: 'job',
  collection: 'code/jobs',
  param: 'job',
  noun: 'job',
  // No page of its own: the url is the job's folder under its owner (readers with a token).
  url: (env, owner, name) => `${env.PUBLIC_ORIGIN}/v1/users/${owner}/code/jobs/${name}`,
  entries: [
    { path: 'name', access: 'rw', limit: 256 },
    { path: 'description', access: 'rw', limit: 16 * KiB },
    { path: 'summary', access: 'rw', limit: 4 * KiB, summary: 'Short text summary' },
    ...canonicalEntries(() => jobKind),
    {
      path: 'config/type',
      access: 'rw',
      default: 'job',
      limit: 64,
      validate: typeWordProblem,
      summary: 'Type: a lowercase word (stored for the clients; runs do not change with it)',
    },
    { path: 'config/chains', access: 'rw', limit: 16 * KiB, validate: (v) => chainProblem(v), summary: 'The chain: bindings label <- ref and edges a -> b -> .c' },
    {
      path: 'config/schedule',
      access: 'rw',
      limit: 512,
      validate: (v) => scheduleProblem(v),
      afterWrite: resync,
      summary: 'Cron expression (five fields), optional TZ=<zone> prefix and # comment',
    },
    {
      path: 'config/enabled',
      access: 'rw',
      default: 'true',
      limit: 16,
      validate: (v) => booleanProblem(v),
      afterWrite: resync,
      summary: 'true or false: scheduled runs happen only when enabled',
    },
    { path: 'config/network', access: 'rw', default: 'false', limit: 16, validate: (v) => booleanProblem(v), summary: 'true lets the job code reach the network' },
  ],
  folders: ['code', 'runs', 'stats', 'config/env'],
  files: [
    { name: 'data', access: 'w' },
    { name: 'log', access: 'r' },
  ],
  // Env values are secrets of the owner: a copy (possibly by a read grantee) never carries them.
  copyExcludes: (path) => path.startsWith('config/env/'),
  copied: async (from, to) => {
    const listed = await from.env.BLOBS.list({ prefix: codePrefix(from.resource.id) });
    await Promise.all(
      listed.objects.map(async (o) => {
        const obj = await from.env.BLOBS.get(o.key);
        if (obj) await from.env.BLOBS.put(codePrefix(to.id) + o.key.slice(codePrefix(from.resource.id).length), await obj.arrayBuffer(), { httpMetadata: obj.httpMetadata });
      }),
    );
    const meta = await from.db.select().from(jobMeta).where(eq(jobMeta.job_id, from.resource.id)).get();
    if (meta) await from.db.insert(jobMeta).values({ job_id: to.id, code_version: meta.code_version, failures: 0 });
    await syncSchedule(from.env, from.db, to.id);
  },
};
