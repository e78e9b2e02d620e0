// The listings' fast path (src/gql/fast-path.ts) answers exactly what graphql-js answers:
// every request the client sends, and the full item selection, run both ways for every
// kind of caller (owner, user-group member, org founder, org admin, org-group member,
// stranger, anonymous) over private, public and group-shared items of another user, and
// the two JSON texts compared. The list queries must be taken by the fast path; a query
// that makes graphql-js answer an error is left to it.
import { env } from 'cloudflare:workers';
import { eq } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/d1';
import { execute, parse, type ExecutionArgs, type ExecutionResult } from 'graphql';
import { beforeAll, describe, expect, it } from 'vitest';
import { dbFor } from '../../../src/core/context';
import { users, type User } from '../../../src/db/schema';
import { fastExecute } from '../../../src/gql/fast-path';
import { makeLoaders } from '../../../src/gql/loaders';
import { gqlSchema } from '../../../src/gql/resolvers';
import { call, type TestUser } from '../helpers';
import { meList, rootList } from './client-queries';
import { clientRequests, LISTED_KINDS, listRequests, type ClientRequest } from './client-requests';
import { buildWorld, ok, type World } from './fixtures';

/** Every item field (the bench's 1,000-document selection, and more), with an alias and __typename. */
const EVERY_ITEM_FIELD = `
    __typename id name type summary url owner shortname created updated public
    shared { id name type __typename } tags { id name type } author { username } social { views }
    topics { topic_id slug message audience status num_comments num_likes num_dislikes edited created updated creator { username } }
    vars { id value format type threshold about }
    label: name`;
const JOB_ONLY = 'enabled schedule job_steps last_run_status last_run_time run_count current_step triggers';
const MAIL_ONLY = 'enabled';
const everyField = (kind: string) =>
  `${EVERY_ITEM_FIELD} ${kind === 'jobs' ? JOB_ONLY : kind === 'mails' ? MAIL_ONLY : ''}`;

let w: World;
let callers: [string, TestUser | null][];
beforeAll(async () => {
  w = await buildWorld();
  const owner = { token: w.owner.token };
  const team = `/v1/vis/docs/${w.names.team}`;
  // What the listings show beside the rows: summaries, tags (the owner's and a reader's own),
  // a variable, a thread with a comment, runs of a job.
  for (const n of Object.values(w.names))
    await ok(call('POST', `/v1/vis/docs/${n}/summary`, { ...owner, text: `About ${n}` }));
  await ok(call('PUT', `${team}/tags/fav`, owner));
  await ok(call('PUT', `${team}/tags/+mine`, owner));
  await ok(
    call('PUT', `/v1/users/${w.owner.username}/vis/docs/${w.names.team}/tags/=reading`, { token: w.member.token }),
  );
  await ok(call('PUT', `${team}/vars/growth`, owner));
  await ok(call('POST', `${team}/vars/growth/value`, { ...owner, text: '12.5' }));
  const thread = `/v1/users/${w.owner.username}/vis/docs/${w.names.team}/threads/review`;
  await ok(call('PUT', thread, { token: w.member.token }));
  await ok(call('POST', thread, { token: w.member.token, text: `looks good @${w.owner.username}` }));
  await env.DB.prepare(
    `insert into job_runs (name, shortname, job_id, top, root_job_id, status, trigger, source, created_by, started_on)
     select 'fast_run', 'fast_run_s', id, 1, id, 'success', 'email', 'test', 'test', '2024-11-29T09:39:33.000Z'
     from resources where kind = 'job' and name = ? and owner_id = (select id from users where username = ?)`,
  )
    .bind(w.names.team, w.owner.username)
    .run();
  callers = [
    ['owner', w.owner],
    ['user-group member', w.member],
    ['org founder', w.orgAccount],
    ['org admin', w.orgAdmin],
    ['org-group member', w.salesMember],
    ['stranger', w.stranger],
    ['anonymous', null],
  ];
}, 120_000);

async function argsFor(who: TestUser | null, [, query, variables]: ClientRequest): Promise<ExecutionArgs> {
  const caller: User | null = who
    ? ((await drizzle(env.DB).select().from(users).where(eq(users.username, who.username)).get()) ?? null)
    : null;
  const db = dbFor(env);
  return {
    schema: gqlSchema(),
    document: parse(query),
    variableValues: variables,
    contextValue: { env, db, caller, loaders: makeLoaders(db, caller, env) },
  };
}

/** The answer both ways (each with its own loaders): graphql-js's, and the fast path's (null: not taken). */
async function bothWays(who: TestUser | null, request: ClientRequest) {
  const slow = (await execute(await argsFor(who, request))) as ExecutionResult;
  const fast = await fastExecute(await argsFor(who, request));
  return { slow, fast };
}

/** The list requests of the client, and every item field through both listings. */
function listings(): ClientRequest[] {
  return [
    ...listRequests(w),
    ...LISTED_KINDS.flatMap((k): ClientRequest[] => [
      [`me { ${k} { every field } }`, meList(k, everyField(k)), undefined],
      [`${k}(author) { every field }`, rootList(k, everyField(k)), { author: w.owner.username, limit: 3, offset: 1 }],
    ]),
    [
      'docs(author, id)',
      `{ docs(author: "${w.owner.username}", id: "${w.names.team}") { ${everyField('docs')} } }`,
      undefined,
    ],
  ];
}

describe('the fast path answers what graphql-js answers', () => {
  it('every list request of the client and every item field, for every kind of caller: taken, the same JSON', async () => {
    for (const [role, who] of callers) {
      for (const request of listings()) {
        const { slow, fast } = await bothWays(who, request);
        const what = `${role}: ${request[0]}`;
        expect(slow.errors, what).toBeUndefined();
        expect(fast, `${what}: the fast path gave up`).not.toBeNull();
        expect(JSON.stringify(fast), what).toBe(JSON.stringify(slow));
      }
    }
  });

  it('the listings are not empty: the owner sees all four items, the member the public and the team one', async () => {
    const docs = `{ docs(author: "${w.owner.username}") { id tags { id } topics { num_comments } } }`;
    const ids = async (who: TestUser) =>
      ((await bothWays(who, ['', docs, undefined])).fast!.data!.docs as { id: string }[]).map((d) => d.id);
    expect(await ids(w.owner)).toEqual(Object.values(w.names).sort());
    expect((await bothWays(w.member, ['', docs, undefined])).fast!.data!.docs).toEqual([
      { id: w.names.pub, tags: [], topics: [] },
      { id: w.names.team, tags: [{ id: '=reading' }], topics: [{ num_comments: 1 }] },
    ]);
  });

  it('every other request of the client, for every kind of caller: the same JSON whichever answers', async () => {
    for (const [role, who] of callers) {
      for (const request of clientRequests(w)) {
        const { slow, fast } = await bothWays(who, request);
        expect(JSON.stringify(fast ?? slow), `${role}: ${request[0]}`).toBe(JSON.stringify(slow));
      }
    }
  });

  it('at /gql, byte for byte: the body of each list request is the JSON of graphql-js', async () => {
    for (const request of listings()) {
      const [what, query, variables] = request;
      const res = await call('POST', '/gql', { token: w.member.token, json: { query, variables } });
      expect(await res.text(), what).toBe(JSON.stringify(await execute(await argsFor(w.member, request))));
    }
  });

  it('leaves a query graphql-js answers with an error to it: bad paging, no caller, unknown author, bad variables', async () => {
    const failing: [TestUser | null, ClientRequest][] = [
      [w.owner, ['limit too large', '{ docs(limit: 5000) { id } }', undefined]],
      [null, ['anonymous without author', '{ docs { id } }', undefined]],
      [w.owner, ['unknown author', '{ docs(author: "nobody_here_at_all") { id } }', undefined]],
      [w.owner, ['a variable of the wrong type', 'query ($l: Int) { docs(limit: $l) { id } }', { l: 'many' }]],
    ];
    for (const [who, request] of failing) {
      const { slow, fast } = await bothWays(who, request);
      expect(fast, request[0]).toBeNull();
      expect(slow.errors, request[0]).toBeDefined();
    }
  });
});
