/**
 * The GraphQL server (graphql-yoga on graphql-js) with its limits: query tokens, depth,
 * cost, aliases and body size. Bearer auth is optional (anonymous callers see what REST
 * shows them); a token that is sent but unknown answers 401 like REST.
 */
import { costLimitRule } from '@escape.tech/graphql-armor-cost-limit';
import { maxAliasesPlugin } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthRule } from '@escape.tech/graphql-armor-max-depth';
import {
  execute as executeGraphql,
  parse,
  type ExecutionArgs,
  type GraphQLError,
  type ValidationContext,
  type ValidationRule,
} from 'graphql';
import { createYoga, type Plugin } from 'graphql-yoga';
import { bearerToken } from '../core/auth';
import type { Ctx } from '../core/context';
import { invalidToken } from '../core/errors';
import { readBytes } from '../core/http';
import type { User } from '../db/schema';
import { fastExecute } from './fast-path';
import { makeLoaders } from './loaders';
import { maxReplyLevels, onCollapsed } from './reply-levels';
import { gqlSchema, type GqlContext } from './resolvers';
import { LIMITS } from './values';

interface ServerContext {
  env: Env;
  db: GqlContext['db'];
  caller: User | null;
}

// Limits found during validation are reported as validation errors (so a client that
// accepts application/graphql-response+json gets 400, like any invalid query).
const asValidationError = {
  propagateOnRejection: false,
  onReject: [(ctx: ValidationContext | null, err: GraphQLError) => ctx?.reportError(err)],
};
// Tokens are counted by graphql-js's own parser (its maxTokens option), so the error is the
// library's own syntax error (400), before any validation work.
const maxTokens: Plugin = {
  onParse: ({ setParseFn }) => setParseFn((source, options) => parse(source, { ...options, maxTokens: LIMITS.tokens })),
};
// The listings' fast path first (fast-path.ts: the same answer without graphql-js's
// per-field work); every other query, and one it gives up on, runs on graphql-js's own
// executor instead of yoga's default (@graphql-tools/executor, which adds @defer/@stream
// this API does not offer): the latter builds two closures per resolved field, which the
// Worker bundle's keep-names helper makes costly (a third of a 100-item listing's
// execution time in the bench). Like the default, a request that cannot start (variables
// of the wrong type) answers 400.
const graphqlJsExecutor: Plugin = {
  onExecute: ({ setExecuteFn }) =>
    setExecuteFn((args: ExecutionArgs) => {
      const fast = fastExecute(args);
      return fast ? fast.then((result) => result ?? graphqlJs(args)) : graphqlJs(args);
    }),
};
function graphqlJs(args: ExecutionArgs): ReturnType<typeof executeGraphql> {
  const result = executeGraphql(args);
  if (!(result instanceof Promise) && !('data' in result)) result.errors?.forEach(asBadRequest);
  return result;
}
function asBadRequest(err: GraphQLError): void {
  Object.defineProperty(err, 'extensions', { value: { ...err.extensions, http: { status: 400 } } });
}
const rules = (...list: ValidationRule[]): Plugin => ({
  onValidate: ({ addValidationRule }) => list.forEach((r) => addValidationRule(r)),
});
const plugins = [
  graphqlJsExecutor,
  maxTokens,
  // Depth and cost see a nested `replies` chain as one level (reply-levels.ts: the reply
  // tree is read in one statement whatever its depth); the chain has its own bound.
  rules(
    onCollapsed(
      maxDepthRule({ n: LIMITS.depth, ignoreIntrospection: false, flattenFragments: true, ...asValidationError }),
    ),
    // Introspection is bounded by depth and tokens; its static cost is large but fixed.
    onCollapsed(costLimitRule({ maxCost: LIMITS.cost, ...asValidationError })),
    maxReplyLevels,
  ),
  maxAliasesPlugin({ n: LIMITS.aliases, ...asValidationError }),
] as Plugin[];

/** The GraphQL server, made on the first query (its schema too): not at the Worker's startup. */
const makeYoga = () =>
  createYoga<ServerContext, GqlContext>({
    schema: gqlSchema(),
    graphqlEndpoint: '/gql',
    graphiql: false,
    landingPage: false,
    logging: false,
    // Unexpected errors never leak their message or stack, in development either.
    maskedErrors: { isDev: false },
    batching: false,
    // The body is bounded before yoga sees it (execute), without yoga's per-request stream.
    maxRequestBodySize: false,
    plugins,
    context: ({ env, db, caller }) => ({ env, db, caller, loaders: makeLoaders(db, caller, env) }),
  });
let yoga: ReturnType<typeof makeYoga> | undefined;

/** Runs one GraphQL request for the caller (the router has authenticated it). */
export async function execute(ctx: Ctx): Promise<Response> {
  if (bearerToken(ctx.req) && !ctx.caller)
    throw invalidToken('invalid token: it is unknown or was revoked (sign in again: POST /v1/token)');
  return (yoga ??= makeYoga()).fetch(await bounded(ctx.req), { env: ctx.env, db: ctx.db, caller: ctx.caller });
}

/**
 * The request with a body of at most LIMITS.body bytes (413 above it). A declared
 * Content-Length within the limit is a bound the runtime enforces (the body ends there),
 * so that request goes to yoga as it is; a body of undeclared length is read, counted and
 * handed over as a fresh request.
 */
async function bounded(req: Request): Promise<Request> {
  if (req.method !== 'POST' || !req.body) return req;
  const declared = req.headers.get('Content-Length');
  if (declared !== null && /^\d+$/.test(declared) && Number(declared) <= LIMITS.body) return req;
  const body = await readBytes(req, LIMITS.body);
  return new Request(req.url, { method: 'POST', headers: req.headers, body: new Uint8Array(body) });
}
