/**
 * Counting the D1 statements of one GraphQL request: the real Worker route table runs
 * against the real local D1; the binding is wrapped only to count the statements it
 * prepares (measuring, not mocking). As in gql-queries.test.ts, with variables.
 */
import { env } from 'cloudflare:workers';
import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { expect } from 'vitest';
import { platformApi } from '../../../src/app';

const api = platformApi();

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

export interface Measured {
  data: Record<string, unknown>;
  statements: string[];
}

async function runOnce(token: string, query: string, variables?: Record<string, unknown>): Promise<Measured> {
  const counted = countingEnv();
  const ctx = createExecutionContext();
  const res = await api.fetch(
    new Request('http://platform.test/gql', {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ query, variables }),
    }),
    counted.env,
    ctx,
  );
  await waitOnExecutionContext(ctx);
  const body = (await res.json()) as { data: Record<string, unknown>; errors?: unknown };
  expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
  return { data: body.data, statements: counted.statements };
}

/** Runs the query twice (the first warms the token cache) and counts the second run's statements. */
export async function measured(token: string, query: string, variables?: Record<string, unknown>): Promise<Measured> {
  await runOnce(token, query, variables);
  return runOnce(token, query, variables);
}
