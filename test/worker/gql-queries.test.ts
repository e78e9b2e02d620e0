// The N+1 bound: a listing of 100 items with shares, tags and entries is a fixed number of
// D1 statements. The real Worker route table runs against the real local D1; the binding
// is wrapped only to count the statements it prepares (measuring, not mocking).
import { env } from 'cloudflare:workers';
import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import { api } from '../../src/app';
import { call, makeUser, type TestUser } from './helpers';
import { ok } from './gql-fixtures';

function countingEnv(): { env: Env; statements: string[] } {
  const statements: string[] = [];
  const DB = new Proxy(env.DB, {
    get(target, prop) {
      if (prop === 'prepare') {
        return (query: string) => {
          statements.push(query);
          return target.prepare(query);
        };
      }
      const v = Reflect.get(target, prop);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
  return { env: { ...env, DB } as Env, statements };
}

/** Runs the query twice (the first warms the token cache) and counts the second run's statements. */
async function measured(token: string, query: string): Promise<{ data: Record<string, unknown[]>; statements: string[] }> {
  await once(token, query);
  return once(token, query);
}

async function once(token: string, query: string): Promise<{ data: Record<string, unknown[]>; statements: string[] }> {
  const counted = countingEnv();
  const ctx = createExecutionContext();
  const res = await api.fetch(
    new Request('http://platform.test/gql', { method: 'POST', headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ query }) }),
    counted.env,
    ctx,
  );
  await waitOnExecutionContext(ctx);
  const body = (await res.json()) as { data: Record<string, unknown[]>; errors?: unknown };
  expect(body.errors).toBeUndefined();
  return { data: body.data, statements: counted.statements };
}

async function inBatches<T>(items: T[], size: number, fn: (t: T) => Promise<unknown>) {
  for (let i = 0; i < items.length; i += size) await Promise.all(items.slice(i, i + size).map(fn));
}

let big: TestUser;
let small: TestUser;
let reader: TestUser;
const FULL = 'id name type summary url updated public shared { id name type } tags { id name type }';

beforeAll(async () => {
  [big, small, reader] = await Promise.all([makeUser({ profile_public: true }), makeUser({ profile_public: true }), makeUser()]);
  for (const [u, n] of [[big, 100], [small, 3]] as const) {
    const names = Array.from({ length: n }, (_, i) => `doc_${String(i).padStart(3, '0')}`);
    await inBatches(names, 10, async (name) => {
      await ok(call('PUT', `/v1/vis/docs/${name}`, { token: u.token }));
      await ok(call('POST', `/v1/vis/docs/${name}/summary`, { token: u.token, text: `about ${name}` }));
      await ok(call('PUT', `/v1/vis/docs/${name}/shared/public`, { token: u.token }));
      await ok(call('PUT', `/v1/vis/docs/${name}/tags/fav`, { token: u.token }));
      await ok(call('PUT', `/v1/vis/docs/${name}/tags/+work`, { token: u.token }));
    });
  }
}, 180_000);

describe('no N+1: statements per query do not grow with the number of items', () => {
  it('docs listing of 100 items with shares, tags and entries: 4 D1 statements, the same as for 3 items', async () => {
    const many = await measured(big.token, `{ docs(limit: 100) { ${FULL} } }`);
    expect(many.data.docs).toHaveLength(100);
    const few = await measured(small.token, `{ docs(limit: 100) { ${FULL} } }`);
    expect(few.data.docs).toHaveLength(3);
    // resources, entries, shares, tags
    expect(many.statements.length).toBe(4);
    expect(many.statements.length).toBe(few.statements.length);
    const d = many.data.docs[7] as Record<string, unknown>;
    expect(d).toMatchObject({ id: 'doc_007', summary: 'about doc_007', public: true, tags: [{ id: '+work' }, { id: 'fav' }] });
  });

  it('a reader listing another user\'s 100 shared docs also stays bounded', async () => {
    const q = (owner: string) => `{ docs(author: "${owner}", limit: 100) { ${FULL} } }`;
    const many = await measured(reader.token, q(big.username));
    const few = await measured(reader.token, q(small.username));
    expect(many.data.docs).toHaveLength(100);
    expect(many.statements.length).toBe(few.statements.length);
    expect(many.statements.length).toBe(5); // + the author's row
  });

  it('jobs with last_run, and all four listings in one query, stay bounded', async () => {
    const q = `{ docs { id shared { id } tags { id } } grids { id name } mails { id enabled } jobs { id schedule enabled last_run { status } } }`;
    const many = await measured(big.token, q);
    const few = await measured(small.token, q);
    expect(many.statements.length).toBe(few.statements.length);
  });
});
