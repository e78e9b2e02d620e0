// The N+1 bound: a listing of 100 items with shares, tags and entries is a fixed number of
// D1 statements. The real Worker route table runs against the real local D1; the binding
// is wrapped only to count the statements it prepares (measuring, not mocking).
import { env } from 'cloudflare:workers';
import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import { platformApi } from '../../../src/app';
import { call, makeUser, type TestUser } from '../helpers';

const api = platformApi();

function countingEnv(): { env: Env; statements: string[] } {
  const statements: string[] = [];
  // Requests run their queries in a D1 session (env.DB.withSession): count on it too.
  const counting = <T extends object>(db: T): T =>
    new Proxy(db, {
      get(target, prop) {
        if (prop === 'prepare') {
          return (query: string) => {
            statements.push(query);
            return (target as unknown as D1Database).prepare(query);
          };
        }
        if (prop === 'withSession')
          return (start?: string) => counting((target as unknown as D1Database).withSession(start));
        const v = Reflect.get(target, prop);
        return typeof v === 'function' ? v.bind(target) : v;
      },
    });
  return { env: { ...env, DB: counting(env.DB) } as Env, statements };
}

/** Runs the query twice (the first warms the token cache) and counts the second run's statements. */
async function measured(
  token: string,
  query: string,
): Promise<{ data: Record<string, unknown[]>; statements: string[] }> {
  await once(token, query);
  return once(token, query);
}

async function once(token: string, query: string): Promise<{ data: Record<string, unknown[]>; statements: string[] }> {
  const counted = countingEnv();
  const ctx = createExecutionContext();
  const res = await api.fetch(
    new Request('http://platform.test/gql', {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ query }),
    }),
    counted.env,
    ctx,
  );
  await waitOnExecutionContext(ctx);
  const body = (await res.json()) as { data: Record<string, unknown[]>; errors?: unknown };
  expect(body.errors).toBeUndefined();
  return { data: body.data, statements: counted.statements };
}

/**
 * Writes `n` documents of `owner`, each with a summary entry, a public share and two tags,
 * as rows of the core tables (the rows the REST routes write), in one D1 batch: the
 * fixture stays fast on a busy machine.
 */
async function seedDocs(owner: TestUser, n: number): Promise<void> {
  const id = (await env.DB.prepare('select id from users where username = ?')
    .bind(owner.username)
    .first<{ id: number }>())!.id;
  const now = new Date().toISOString();
  const names = Array.from({ length: n }, (_, i) => `doc_${String(i).padStart(3, '0')}`);
  await env.DB.batch(
    names.map((name) =>
      env.DB.prepare(
        "insert into resources (kind, owner_id, name, shortname, created_on, last_modified) values ('doc', ?, ?, ?, ?, ?)",
      ).bind(id, name, `${owner.username}_${name}`, now, now),
    ),
  );
  const sub = "(select id from resources where owner_id = ?1 and kind = 'doc' and name = ?2)";
  await env.DB.batch(
    names.flatMap((name) => [
      env.DB.prepare(
        `insert into entries (resource_id, path, value, size, created_on, last_modified) values (${sub}, 'summary', ?3, 9, ?4, ?4)`,
      ).bind(id, name, `about ${name}`, now),
      env.DB.prepare(
        `insert into shares (resource_id, entry, group_id, perms, created_on) values (${sub}, 'public', null, 'r', ?3)`,
      ).bind(id, name, now),
      env.DB.prepare(`insert into tags (resource_id, user_id, tag, created_on) values (${sub}, ?1, 'fav', ?3)`).bind(
        id,
        name,
        now,
      ),
      env.DB.prepare(`insert into tags (resource_id, user_id, tag, created_on) values (${sub}, ?1, '+work', ?3)`).bind(
        id,
        name,
        now,
      ),
    ]),
  );
}

let big: TestUser;
let small: TestUser;
let reader: TestUser;
const FULL = 'id name type summary url updated public shared { id name type } tags { id name type }';

beforeAll(async () => {
  [big, small, reader] = await Promise.all([
    makeUser({ profile_public: true }),
    makeUser({ profile_public: true }),
    makeUser(),
  ]);
  await seedDocs(big, 100);
  await seedDocs(small, 3);
  // The seeded rows read back through REST like any others.
  const rest = await call('GET', `/v1/users/${big.username}/vis/docs`, { token: reader.token });
  expect(((await rest.json()) as unknown[]).length).toBe(100);
}, 120_000);

describe('no N+1: statements per query do not grow with the number of items', () => {
  it('docs listing of 100 items with shares, tags and entries: one D1 statement, the same as for 3 items', async () => {
    const many = await measured(big.token, `{ docs(limit: 100) { ${FULL} } }`);
    expect(many.data.docs).toHaveLength(100);
    const few = await measured(small.token, `{ docs(limit: 100) { ${FULL} } }`);
    expect(few.data.docs).toHaveLength(3);
    // the page with each item's entries, shares and tags as JSON columns
    expect(many.statements.length).toBe(1);
    expect(many.statements.length).toBe(few.statements.length);
    const d = many.data.docs![7] as Record<string, unknown>;
    expect(d).toMatchObject({
      id: 'doc_007',
      summary: 'about doc_007',
      public: true,
      tags: [{ id: '+work' }, { id: 'fav' }],
    });
  });

  it("a reader listing another user's 100 shared docs also stays bounded", async () => {
    const q = (owner: string) => `{ docs(author: "${owner}", limit: 100) { ${FULL} } }`;
    const many = await measured(reader.token, q(big.username));
    const few = await measured(reader.token, q(small.username));
    expect(many.data.docs).toHaveLength(100);
    expect(many.statements.length).toBe(few.statements.length);
    expect(many.statements.length).toBe(2); // + the author's row, in the same batch
  });

  it('jobs with last_run, and all four listings in one query, stay bounded', async () => {
    const q = `{ docs { id shared { id } tags { id } } grids { id name } mails { id enabled } jobs { id schedule enabled last_run { status } } }`;
    const many = await measured(big.token, q);
    const few = await measured(small.token, q);
    expect(many.statements.length).toBe(few.statements.length);
  });
});

describe("the client contract's listings of 1000 items stay a bounded number of D1 statements", () => {
  // The client's item selection (docs/areas/gql.md: ITEM), topics and vars included.
  const ITEM = `id name type summary url updated created public shared { id name type } tags { id name type } author { username } social { views }
    topics { num_comments num_likes num_dislikes } vars { id value format type threshold }`;
  let thousand: TestUser;
  beforeAll(async () => {
    thousand = await makeUser({ profile_public: true });
    await seedDocs(thousand, 1000);
  }, 300_000);

  it('me { docs } of 1000 documents with every item field: as many statements as for 3 documents', async () => {
    const q = `query Me { me { username timezone docs(limit: 1000) { ${ITEM} } } }`;
    const many = await measured(thousand.token, q);
    const few = await measured(small.token, q);
    const docs = (many.data.me as unknown as { docs: Record<string, unknown>[] }).docs;
    expect(docs).toHaveLength(1000);
    expect(docs[999]).toMatchObject({ id: 'doc_999', summary: 'about doc_999', public: true, topics: [], vars: [] });
    expect(many.statements.length).toBe(few.statements.length);
    expect(many.statements.length).toBeLessThanOrEqual(3); // the page, the topics and their comments
  });

  it('docs(author) of 1000 documents read by another user, and users { docs } over them: bounded', async () => {
    const list = `query List { docs(author: "${thousand.username}", limit: 1000, offset: 0) { ${ITEM} } }`;
    const many = await measured(reader.token, list);
    expect(many.data.docs).toHaveLength(1000);
    const few = await measured(reader.token, list.replace(thousand.username, small.username));
    expect(many.statements.length).toBe(few.statements.length);
    const users = `{ users(username: "${thousand.username}") { username docs { ${ITEM} } } }`;
    const nested = await measured(reader.token, users);
    expect((nested.data.users![0] as { docs: unknown[] }).docs).toHaveLength(1000);
    const nestedFew = await measured(reader.token, users.replace(thousand.username, small.username));
    expect(nested.statements.length).toBe(nestedFew.statements.length);
  });

  it('a group with 1000 documents shared with it (groups { docs }): as many statements as with 3', async () => {
    const crew = async (owner: TestUser) => {
      const id = (await env.DB.prepare('select id from users where username = ?')
        .bind(owner.username)
        .first<{ id: number }>())!.id;
      const now = new Date().toISOString();
      const ref = `@${owner.username}~crew`;
      const g = (await env.DB.prepare(
        "insert into groups (kind, slug, owner_id, ref, created_on, last_modified) values ('user_group', 'crew', ?, ?, ?, ?) returning id",
      )
        .bind(id, ref, now, now)
        .first<{ id: number }>())!.id;
      await env.DB.prepare(
        "insert into members (group_id, user_id, role, state, created_on, last_modified) values (?, ?, 'founders', 'active', ?, ?)",
      )
        .bind(g, id, now, now)
        .run();
      await env.DB.prepare(
        `insert into shares (resource_id, entry, group_id, perms, created_on) select id, ?, ?, 'r', ? from resources where owner_id = ? and kind = 'doc'`,
      )
        .bind(ref, g, now, id)
        .run();
      return ref;
    };
    const q = (ref: string) => `{ groups(id: "${ref}") { id docs { ${ITEM} } } }`;
    const many = await measured(thousand.token, q(await crew(thousand)));
    expect((many.data.groups![0] as { docs: unknown[] }).docs).toHaveLength(1000);
    const few = await measured(small.token, q(await crew(small)));
    expect((few.data.groups![0] as { docs: unknown[] }).docs).toHaveLength(3);
    expect(many.statements.length).toBe(few.statements.length);
  });
});
