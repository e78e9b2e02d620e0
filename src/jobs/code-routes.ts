/**
 * `<job>/code/`: the job's code files, kept in R2 with who wrote each; each change renames
 * its sandbox isolate (the code version). Code someone other than the owner wrote runs
 * without the owner's env values and network until the owner approves that version
 * (code-files.ts).
 */
import { now } from '../core/clock';
import { text } from '../core/examples';
import { badRequest, conflict, notFound } from '../core/errors';
import { MiB, noContent, readBytes, readText, USER_BYTES_HEADERS } from '../core/http';
import { listingResponse, listingResponses } from '../core/listing';
import { libraries } from '../core/libraries';
import { appendLog } from '../core/log';
import { checkName } from '../core/names';
import { listingItem, type ResourceCtx, type ResourceRoutes } from '../core/resource';
import { CODE_FILE, codePrefix, listCode, MAX_CODE_FILES, writtenBy } from './code-files';
import { jobMeta } from './schema';

const CODE_LIMIT = 1 * MiB;

/**
 * The code version names the job's sandbox isolate: a hash of its code files (name, etag,
 * size), so uploading identical code again keeps the warm isolate instead of making another
 * (local workerd never evicts Worker Loader isolates; in production, same code, same isolate).
 */
async function bumpCodeVersion(rc: ResourceCtx): Promise<void> {
  const { version } = await listCode(rc.env, rc.resource.id, rc.resource.owner_id);
  await rc.db
    .insert(jobMeta)
    .values({ job_id: rc.resource.id, code_version: version })
    .onConflictDoUpdate({ target: jobMeta.job_id, set: { code_version: version } });
}

/** What a job's code/index.js reads like (docs/areas/jobs.md, "Running code"). */
const CODE_EXAMPLE = `export default {
  async run(input, ctx) {
    const rows = input.rows ?? [];
    return { count: rows.length };
  },
};
`;

export function codeRoutes(r: ResourceRoutes): void {
  r.get('/code', {
    summary: "The job's code files (X-NVM-Code-Version: the version a run loads, what code/approve confirms)",
    need: 'r',
    responses: listingResponses,
    handler: async (rc) => {
      const prefix = codePrefix(rc.resource.id);
      const [listed, code] = await Promise.all([
        rc.env.BLOBS.list({ prefix, include: ['customMetadata'] }),
        listCode(rc.env, rc.resource.id, rc.resource.owner_id),
      ]);
      const actions = rc.access.w ? (['GET', 'POST', 'DELETE'] as const) : (['GET'] as const);
      const res = listingResponse(
        rc.url,
        listed.objects
          .map((o) => {
            const at = o.uploaded.toISOString();
            return listingItem(
              rc,
              o.key.slice(prefix.length),
              `${rc.base}/code/${o.key.slice(prefix.length)}`,
              'file',
              [...actions],
              o.customMetadata?.created_on ?? at,
              at,
            );
          })
          .sort((a, b) => a.name.localeCompare(b.name)),
      );
      res.headers.set('X-NVM-Code-Version', code.version);
      res.headers.set('X-NVM-Code-Approved', code.trusted ? 'yes' : 'no');
      return res;
    },
  });
  r.post('/code/approve', {
    summary:
      'Approve the code version named in the body (X-NVM-Code-Version): code someone else wrote then runs with the env values and network',
    need: 'owner',
    body: { type: 'text/plain', schema: () => text('4be2c0d9a17f3e58b6d1') },
    responses: {
      204: { description: 'Approved: every code file counts as written by the owner' },
      400: { description: 'No version named' },
      409: { description: 'The code is no longer that version' },
    },
    handler: async (rc) => {
      const wanted = (await readText(rc.req, 256)).trim();
      if (!wanted) throw badRequest('name the code version you reviewed (X-NVM-Code-Version of GET code)');
      const code = await listCode(rc.env, rc.resource.id, rc.resource.owner_id);
      const changed = () =>
        conflict(`the code is no longer version ${wanted}: review it again (GET code; its X-NVM-Code-Version)`);
      if (code.version !== wanted) throw changed();
      // Each file the owner did not write is written again as the owner's, only if it is still the reviewed bytes.
      for (const f of code.files.filter((f) => f.writer !== rc.resource.owner_id)) {
        const obj = await rc.env.BLOBS.get(f.key, { onlyIf: { etagMatches: f.etag } });
        if (!obj || !('arrayBuffer' in obj)) throw changed();
        const put = await rc.env.BLOBS.put(f.key, await obj.arrayBuffer(), {
          onlyIf: { etagMatches: f.etag },
          httpMetadata: obj.httpMetadata ?? {},
          customMetadata: { ...obj.customMetadata, ...writtenBy(rc.resource.owner_id) },
        });
        if (!put) throw changed();
      }
      await appendLog(rc.db, rc.resource.id, `code version ${wanted} approved by ${rc.caller!.username}`);
      return noContent();
    },
  });
  r.get('/code/:file', {
    summary: 'A code file',
    need: 'r',
    responses: { 200: { description: 'The file', type: 'text/javascript', schema: () => text(CODE_EXAMPLE) } },
    handler: async (rc) => {
      const obj = await rc.env.BLOBS.get(
        codePrefix(rc.resource.id) + checkName(rc.params.file!, CODE_FILE, 'code file name'),
      );
      if (!obj) throw notFound(`no such code file: ${rc.params.file}`);
      return new Response(obj.body, {
        headers: {
          'Content-Type': obj.httpMetadata?.contentType ?? 'application/octet-stream',
          'X-NVM-Type': 'file',
          ...USER_BYTES_HEADERS,
        },
      });
    },
  });
  r.post('/code/:file', {
    summary: 'Create or replace a code file (raw body, at most 1 MiB; at most 32 files)',
    need: 'w',
    body: { type: 'text/javascript', schema: () => text(CODE_EXAMPLE) },
    responses: {
      204: { description: 'Stored' },
      400: { description: 'Bad file name, or a .js/.mjs file that does not parse as a module (`line`, `column`)' },
      413: { description: 'Too large' },
      409: { description: 'Too many files' },
    },
    handler: async (rc) => {
      const file = checkName(rc.params.file!, CODE_FILE, 'code file name');
      const key = codePrefix(rc.resource.id) + file;
      const bytes = await readBytes(rc.req, CODE_LIMIT, `a code file is limited to ${CODE_LIMIT} bytes`);
      if (/\.m?js$/.test(file)) {
        // The parser (acorn, 200 KiB) runs in the libraries isolate: the Worker does not carry it.
        const problem = await libraries(rc.env).moduleSyntaxProblem(new TextDecoder().decode(bytes));
        if (problem)
          throw badRequest(`code/${file}: line ${problem.line}, column ${problem.column}: ${problem.message}`, {
            line: problem.line,
            column: problem.column,
          });
      }
      const existing = await rc.env.BLOBS.head(key);
      if (!existing) {
        const listed = await rc.env.BLOBS.list({ prefix: codePrefix(rc.resource.id), limit: MAX_CODE_FILES });
        if (listed.objects.length >= MAX_CODE_FILES) throw conflict(`a job has at most ${MAX_CODE_FILES} code files`);
      }
      const type =
        rc.req.headers.get('Content-Type') || (/\.m?js$/.test(file) ? 'text/javascript' : 'application/octet-stream');
      await rc.env.BLOBS.put(key, bytes, {
        httpMetadata: { contentType: type },
        customMetadata: {
          created_on: existing?.customMetadata?.created_on ?? new Date(now()).toISOString(),
          ...writtenBy(rc.caller!.id),
        },
      });
      await bumpCodeVersion(rc);
      return noContent();
    },
  });
  r.delete('/code/:file', {
    summary: 'Remove a code file',
    need: 'w',
    responses: { 204: { description: 'Removed' } },
    handler: async (rc) => {
      const key = codePrefix(rc.resource.id) + checkName(rc.params.file!, CODE_FILE, 'code file name');
      if (!(await rc.env.BLOBS.head(key))) throw notFound(`no such code file: ${rc.params.file}`);
      await rc.env.BLOBS.delete(key);
      await bumpCodeVersion(rc);
      return noContent();
    },
  });
}
