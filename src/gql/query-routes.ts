/**
 * The routes of the GraphQL read API at /gql (the server: server.ts). POST /gql takes
 * JSON {query, variables, operationName}; GET /gql with ?query= runs a query, and without
 * it serves the explorer page.
 */
import { htmlPage } from '../core/examples';
import * as z from 'zod';
import type { Api } from '../core/api';
import { explorerPage } from './explorer';
import { execute } from './server';
import { once } from '../core/once';

const gqlBody = once(() =>
  z
    .object({
      query: z.string(),
      variables: z.record(z.string(), z.unknown()).optional(),
      operationName: z.string().optional(),
    })
    .meta({
      id: 'GraphQLRequest',
      description: 'A GraphQL request',
      example: {
        query: 'query Docs($author: String) { docs(author: $author, limit: 2) { id name summary } }',
        variables: { author: 'alice' },
        operationName: 'Docs',
      },
    }),
);
const gqlResult = once(() =>
  z
    .object({
      data: z.unknown().optional(),
      errors: z.array(z.object({ message: z.string() }).passthrough()).optional(),
    })
    .meta({
      id: 'GraphQLResult',
      description: 'A GraphQL result: data, errors, or both',
      example: { data: { docs: [{ id: 'q3_report', name: 'Q3 report', summary: 'Sales by region, third quarter' }] } },
    }),
);

export function queryRoutes(api: Api): void {
  api.post('/gql', {
    summary: 'Run a GraphQL query: JSON {query, variables, operationName}; answers {data} and/or {errors}',
    tag: 'graphql',
    auth: 'optional',
    reads: true, // the GraphQL API only reads: a read-only token may query it
    body: { type: 'application/json', description: 'A GraphQL request', schema: gqlBody },
    responses: {
      200: {
        description: 'GraphQL result (errors of execution are inside it)',
        type: 'application/json',
        schema: gqlResult,
      },
      400: { description: 'Malformed request or query (GraphQL errors)', type: 'application/json', schema: gqlResult },
      401: { description: 'A bearer token was sent but is unknown' },
      413: { description: 'Request body too large' },
    },
    handler: execute,
  });
  api.get('/gql', {
    summary: 'The GraphQL explorer page (HTML); with ?query= runs a query like POST',
    tag: 'graphql',
    auth: 'optional',
    query: () =>
      z.object({
        query: z.string().optional(),
        variables: z.string().optional(),
        operationName: z.string().optional(),
      }),
    responses: {
      200: {
        description: 'Explorer page, or a GraphQL result for ?query=',
        type: 'text/html',
        schema: () => htmlPage('GraphQL explorer'),
      },
      400: { description: 'Malformed query (GraphQL errors)', type: 'application/json', schema: gqlResult },
    },
    handler: async (ctx) => (ctx.url.searchParams.has('query') ? execute(ctx) : explorerPage()),
  });
}
