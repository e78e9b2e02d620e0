/**
 * What the tests that walk every route of the OpenAPI document share (the fuzz, the
 * nosniff walk): the routes, a world with one resource of each kind, and a real value for
 * each path parameter.
 */
import { expect } from 'vitest';
import { call, unique, type TestUser } from '../helpers';
import { makeJob } from '../jobs/fixtures';

export interface Route {
  method: string;
  path: string;
}

/** Every operation of /v1/openapi.json. */
export async function openApiRoutes(): Promise<{ routes: Route[]; paths: Record<string, unknown> }> {
  const doc = (await (await call('GET', '/v1/openapi.json')).json()) as {
    paths: Record<string, Record<string, unknown>>;
  };
  const routes = Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.keys(ops).map((m) => ({ method: m.toUpperCase(), path })),
  );
  expect(routes.length).toBeGreaterThan(50);
  return { routes, paths: doc.paths };
}

export type Names = { doc: string; grid: string; mail: string; job: string };

/** One document, grid, e-mail and job of `owner` (shared `public` when asked), with the names used. */
export async function walkWorld(owner: TestUser, prefix: string, shared = false): Promise<Names> {
  const names = {
    doc: unique(`${prefix}d`),
    grid: unique(`${prefix}g`),
    mail: unique(`${prefix}m`),
    job: unique(`${prefix}j`),
  };
  for (const [coll, name] of [
    ['vis/docs', names.doc],
    ['vis/grids', names.grid],
    ['vis/mails', names.mail],
  ] as const) {
    expect((await call('PUT', `/v1/${coll}/${name}`, { token: owner.token })).status).toBe(201);
    if (shared)
      expect((await call('PUT', `/v1/${coll}/${name}/shared/public`, { token: owner.token })).status).toBe(201);
  }
  await makeJob(owner, names.job);
  return names;
}

/** A real value for path parameter `param` of `path`: the owner, the world's names, the variable `title`, ... */
export function realValue(param: string, path: string, owner: TestUser, names: Names): string {
  switch (param) {
    case 'user':
    case 'owner':
      return owner.username;
    case 'asset':
      return 'logo.png';
    case 'file':
      return 'index.js';
    case 'doc':
      return names.doc;
    case 'grid':
      return names.grid;
    case 'var':
      return 'title';
    case 'attr':
      return 'value';
    case 'run':
      return '20260101000000-abcdefgh';
    case 'address':
      return encodeURIComponent(`${unique('b')}@example.com`);
    default:
      if (path.includes('/vis/docs/')) return names.doc;
      if (path.includes('/vis/grids/')) return names.grid;
      if (path.includes('/vis/mails/')) return names.mail;
      if (path.includes('/code/jobs/')) return names.job;
      return unique('x');
  }
}
