/**
 * The GraphQL server: GraphQL over HTTP by graphql-http (the GraphQL foundation's reference
 * server), queries by graphql-js, with the limits of this API: query tokens, depth, cost,
 * aliases and body size. Bearer auth is optional (anonymous callers see what REST shows
 * them); a token that is sent but unknown answers 401 like REST.
 */
import { costLimitRule } from '@escape.tech/graphql-armor-cost-limit';
import { maxAliasesRule } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthRule } from '@escape.tech/graphql-armor-max-depth';
import {
  execute as executeGraphql,
  getOperationAST,
  GraphQLError,
  type ExecutionArgs,
  type ExecutionResult,
  type ValidationContext,
} from 'graphql';
import { createHandler, type RequestParams, type Response as HttpAnswer } from 'graphql-http';
import { bearerToken } from '../core/auth';
import type { Ctx } from '../core/context';
import { invalidToken } from '../core/errors';
import { readBytes } from '../core/http';
import { once } from '../core/once';
import { answerType, formatError } from './answers';
import { checkedDocument } from './document-cache';
import { fastExecute } from './fast-path';
import { makeLoaders } from './loaders';
import { maxReplyLevels, onCollapsed } from './reply-levels';
import { gqlSchema, type GqlContext } from './resolvers';
import { LIMITS } from './values';

// Limits found during validation are reported as validation errors (so a client that
// accepts application/graphql-response+json gets 400, like any invalid query).
const asValidationError = {
  propagateOnRejection: false,
  onReject: [(ctx: ValidationContext | null, err: GraphQLError) => ctx?.reportError(err)],
};
/** The rules a query is validated by, beside graphql-js's own. */
const limitRules = once(() => [
  // Depth and cost see a nested `replies` chain as one level (reply-levels.ts: the reply
  // tree is read in one statement whatever its depth); the chain has its own bound.
  onCollapsed(
    maxDepthRule({ n: LIMITS.depth, ignoreIntrospection: false, flattenFragments: true, ...asValidationError }),
  ),
  // Introspection is bounded by depth and tokens; its static cost is large but fixed.
  onCollapsed(costLimitRule({ maxCost: LIMITS.cost, ...asValidationError })),
  maxReplyLevels,
  maxAliasesRule({ n: LIMITS.aliases, ...asValidationError }),
]);

/**
 * The listings' fast path first (fast-path.ts: the same answer without graphql-js's
 * per-field work); every other query, and one it gives up on, runs on graphql-js.
 */
function run(args: ExecutionArgs): Promise<ExecutionResult> | ExecutionResult {
  const fast = fastExecute(args);
  return fast ? fast.then((result) => result ?? executeGraphql(args)) : executeGraphql(args);
}

/** An answer of `errors` with `status`, in the media type the client accepts. */
function answer(
  req: Request,
  status: number,
  errors: readonly (Error | GraphQLError)[],
  headers: Record<string, string> = {},
): HttpAnswer {
  return [
    JSON.stringify({ errors }),
    { status, statusText: '', headers: { 'content-type': `${answerType(req)}; charset=utf-8`, ...headers } },
  ];
}
const refuse = (req: Request, status: number, message: string, code: string, headers?: Record<string, string>) =>
  answer(req, status, [new GraphQLError(message, { extensions: { code } })], headers);

/**
 * GraphQL over HTTP (graphql-http's own handler, made once): the request's context is the
 * caller's, handed over with the request. Its fetch adapter is not used: it turns an
 * exception into an empty 500, where the platform's own error path answers JSON with the
 * request id and logs it.
 */
const handler = once(() =>
  createHandler<Request, GqlContext, GqlContext>({
    execute: run,
    formatError,
    // Parsing (with graphql-js's token bound) and validation, both cached by the query's
    // text (document-cache.ts), so a repeated query costs neither again.
    onSubscribe: (req, params: RequestParams) => {
      const checked = checkedDocument(gqlSchema(), params.query, limitRules());
      if ('errors' in checked) return checked.errors;
      const operation = getOperationAST(checked.document, params.operationName)?.operation;
      // No operation to run (an unknown operationName, several without one) is a request
      // that cannot start; a mutation is never run by GET (and this API has none).
      if (!operation)
        return refuse(req.raw, 400, 'Could not determine what operation to execute.', 'OPERATION_RESOLUTION_FAILURE');
      if (operation === 'mutation' && req.method === 'GET')
        return refuse(req.raw, 405, 'Can only perform a mutation operation from a POST request.', 'BAD_REQUEST', {
          allow: 'POST',
        });
      return {
        schema: gqlSchema(),
        document: checked.document,
        operationName: params.operationName,
        variableValues: params.variables,
        contextValue: req.context,
      };
    },
    // A query that cannot start (variables that do not coerce: a result without `data`)
    // answers 400 whatever the client accepts, as a malformed request does.
    onOperation: (req, _args, result) =>
      'data' in result ? undefined : answer(req.raw, 400, (result as ExecutionResult).errors!.map(formatError)),
  }),
);

/** Runs one GraphQL request for the caller (the router has authenticated it). */
export async function execute(ctx: Ctx): Promise<Response> {
  if (bearerToken(ctx.req) && !ctx.caller)
    throw invalidToken('invalid token: it is unknown or was revoked (sign in again: POST /v1/token)');
  const req = await bounded(ctx.req);
  const [body, init] = await handler()({
    method: req.method,
    url: req.url,
    headers: req.headers,
    body: () => req.text(),
    raw: req,
    context: { env: ctx.env, db: ctx.db, caller: ctx.caller, loaders: makeLoaders(ctx.db, ctx.caller, ctx.env) },
  });
  return new Response(body, init);
}

/**
 * The request with a body of at most LIMITS.body bytes (413 above it). A declared
 * Content-Length within the limit is a bound the runtime enforces (the body ends there),
 * so that request goes on as it is; a body of undeclared length is read, counted and
 * handed over as a fresh request.
 */
async function bounded(req: Request): Promise<Request> {
  if (req.method !== 'POST' || !req.body) return req;
  const declared = req.headers.get('Content-Length');
  if (declared !== null && /^\d+$/.test(declared) && Number(declared) <= LIMITS.body) return req;
  const body = await readBytes(req, LIMITS.body);
  return new Request(req.url, { method: 'POST', headers: req.headers, body: new Uint8Array(body) });
}
