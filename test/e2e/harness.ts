/** HTTP helpers for the end-to-end suites (Node fetch against the running server). */
import { inject } from 'vitest';
import { createUser, requester, unique as uniqueName, type TestUser } from '../client';

export type E2EUser = TestUser;

export const base = () => inject('base');
export const opsToken = () => inject('ops');

export const unique = (prefix = 'e'): string => uniqueName(prefix);

export const http = requester(fetch, base);

export function makeUser(fields: Record<string, unknown> = {}, prefix = 'e'): Promise<E2EUser> {
  return createUser(http, opsToken(), fields, prefix);
}

/** A new user, signed in, on a server a test started itself (scripts/serve.mjs startPlatform). */
export function userOn(
  server: { base: string; ops: string },
  fields: Record<string, unknown> = {},
  prefix = 'e',
): Promise<E2EUser> {
  return createUser(
    requester(fetch, () => server.base),
    server.ops,
    fields,
    prefix,
  );
}
