// GraphQL over HTTP at /gql, row by row: what a request that is not a plain query gets (its
// status, media type and error code), so that no request shape answers 500 and the client's
// own shape (POST JSON, Accept */*) keeps its answers.
import { describe, expect, it } from 'vitest';
import { call } from '../helpers';

const GR = 'application/graphql-response+json';
const JSON_TYPE = 'application/json';
const ME = '{ me { username } }';

interface Row {
  rule: string;
  method?: 'GET' | 'POST' | 'HEAD';
  query?: string;
  type?: string;
  accept?: string;
  body?: string;
  status: number;
  /** The answer's media type (without charset); null: no body type. */
  answers: string | null;
  /** The first error's `extensions.code`, or the data that comes back. */
  code?: string;
  data?: unknown;
}

const q = (query: string, more: Record<string, unknown> = {}) => JSON.stringify({ query, ...more });
const url = (params: Record<string, string>) => `?${new URLSearchParams(params)}`;

const rows: Row[] = [
  // The client's own request: POST JSON with Accept */* (python requests).
  {
    rule: 'a query by POST with Accept */* answers 200 application/json',
    accept: '*/*',
    body: q(ME),
    status: 200,
    answers: JSON_TYPE,
    data: { me: null },
  },
  { rule: 'no Accept is */*', body: q(ME), status: 200, answers: JSON_TYPE, data: { me: null } },
  {
    rule: 'Accept graphql-response+json answers in it',
    accept: GR,
    body: q(ME),
    status: 200,
    answers: GR,
    data: { me: null },
  },
  {
    rule: 'the first acceptable type of the Accept list is the answer type',
    accept: `${GR}, ${JSON_TYPE}`,
    body: q(ME),
    status: 200,
    answers: GR,
    data: { me: null },
  },
  {
    rule: 'a charset on the JSON body type is fine',
    type: 'application/json; charset=utf-8',
    body: q(ME),
    status: 200,
    answers: JSON_TYPE,
    data: { me: null },
  },
  {
    rule: 'an Accept with no JSON type answers 406 (no HTML, event stream or multipart answers)',
    accept: 'text/html',
    body: q(ME),
    status: 406,
    answers: null,
  },
  {
    rule: 'Accept text/event-stream answers 406 (no streamed answers)',
    accept: 'text/event-stream',
    body: q(ME),
    status: 406,
    answers: null,
  },
  { rule: 'Accept multipart/mixed answers 406', accept: 'multipart/mixed', body: q(ME), status: 406, answers: null },
  // Query errors: 400 for graphql-response+json, 200 with errors for the legacy JSON type.
  {
    rule: 'a syntax error is GRAPHQL_PARSE_FAILED, 200 for JSON clients',
    body: q('{ docs { id '),
    status: 200,
    answers: JSON_TYPE,
    code: 'GRAPHQL_PARSE_FAILED',
  },
  {
    rule: 'a syntax error is 400 for graphql-response+json',
    accept: GR,
    body: q('{ docs { id '),
    status: 400,
    answers: GR,
    code: 'GRAPHQL_PARSE_FAILED',
  },
  {
    rule: 'an unknown field is GRAPHQL_VALIDATION_FAILED, 200 for JSON clients',
    body: q('{ nothing }'),
    status: 200,
    answers: JSON_TYPE,
    code: 'GRAPHQL_VALIDATION_FAILED',
  },
  {
    rule: 'an unknown field is 400 for graphql-response+json',
    accept: GR,
    body: q('{ nothing }'),
    status: 400,
    answers: GR,
    code: 'GRAPHQL_VALIDATION_FAILED',
  },
  {
    rule: 'an error of execution answers 200 with its code',
    accept: GR,
    body: q('{ docs { id } }'),
    status: 200,
    answers: GR,
    code: 'UNAUTHENTICATED',
  },
  {
    rule: 'variables that do not coerce answer 400 for every client',
    body: q('query($l: Int) { docs(limit: $l) { id } }', { variables: { l: 'ten' } }),
    status: 400,
    answers: JSON_TYPE,
  },
  {
    rule: 'a required variable not given answers 400',
    accept: GR,
    body: q('query($l: Int!) { docs(limit: $l) { id } }'),
    status: 400,
    answers: GR,
  },
  {
    rule: 'an unknown operationName answers 400 OPERATION_RESOLUTION_FAILURE',
    body: q('query A { me { username } }', { operationName: 'B' }),
    status: 400,
    answers: JSON_TYPE,
    code: 'OPERATION_RESOLUTION_FAILURE',
  },
  {
    rule: 'two operations and no operationName answer 400',
    body: q(`query A ${ME} query B ${ME}`),
    status: 400,
    answers: JSON_TYPE,
    code: 'OPERATION_RESOLUTION_FAILURE',
  },
  {
    rule: 'operationName picks one of several',
    body: q('query A { me { username } } query B { orgs { id } }', { operationName: 'B' }),
    status: 200,
    answers: JSON_TYPE,
    data: { orgs: [] },
  },
  {
    rule: 'variables, operationName and extensions may be null or empty',
    body: q(ME, { variables: null, operationName: null, extensions: {} }),
    status: 200,
    answers: JSON_TYPE,
    data: { me: null },
  },
  // Requests that are not GraphQL requests: 400 BAD_REQUEST whatever the client accepts.
  {
    rule: 'a body that is not JSON answers 400 BAD_REQUEST',
    body: '{nope',
    status: 400,
    answers: JSON_TYPE,
    code: 'BAD_REQUEST',
  },
  { rule: 'an empty body answers 400', body: '', status: 400, answers: JSON_TYPE, code: 'BAD_REQUEST' },
  {
    rule: 'a JSON body that is not an object answers 400',
    body: '"query"',
    status: 400,
    answers: JSON_TYPE,
    code: 'BAD_REQUEST',
  },
  { rule: 'no query answers 400 for every client', body: '{}', status: 400, answers: JSON_TYPE, code: 'BAD_REQUEST' },
  {
    rule: 'a batch (an array) answers 400: batching is off',
    body: `[${q(ME)}]`,
    status: 400,
    answers: JSON_TYPE,
    code: 'BAD_REQUEST',
  },
  {
    rule: 'a query that is not a string answers 400',
    body: '{"query": 5}',
    status: 400,
    answers: JSON_TYPE,
    code: 'BAD_REQUEST',
  },
  {
    rule: 'variables that are not an object answer 400',
    body: q(ME, { variables: '{}' }),
    status: 400,
    answers: JSON_TYPE,
    code: 'BAD_REQUEST',
  },
  {
    rule: 'extensions that are not an object answer 400',
    body: q(ME, { extensions: 'x' }),
    status: 400,
    answers: JSON_TYPE,
    code: 'BAD_REQUEST',
  },
  {
    rule: 'an operationName that is not a string answers 400',
    body: q(ME, { operationName: 5 }),
    status: 400,
    answers: JSON_TYPE,
    code: 'BAD_REQUEST',
  },
  {
    rule: 'a body type other than JSON answers 415 (text/plain)',
    type: 'text/plain',
    body: q(ME),
    status: 415,
    answers: null,
  },
  {
    rule: 'a body type other than JSON answers 415 (application/graphql)',
    type: 'application/graphql',
    body: ME,
    status: 415,
    answers: null,
  },
  {
    rule: 'a body type other than JSON answers 415 (form)',
    type: 'application/x-www-form-urlencoded',
    body: `query=${encodeURIComponent(ME)}`,
    status: 415,
    answers: null,
  },
  // GET: the query in the URL.
  {
    rule: 'GET ?query= runs the query',
    method: 'GET',
    query: url({ query: ME }),
    status: 200,
    answers: JSON_TYPE,
    data: { me: null },
  },
  {
    rule: 'HEAD ?query= answers as GET without a body',
    method: 'HEAD',
    query: url({ query: ME }),
    status: 200,
    answers: JSON_TYPE,
  },
  {
    rule: 'GET variables that are not JSON answer 400, never 500',
    method: 'GET',
    query: url({ query: ME, variables: '{nope' }),
    status: 400,
    answers: JSON_TYPE,
    code: 'BAD_REQUEST',
  },
  {
    rule: 'GET extensions that are not JSON answer 400',
    method: 'GET',
    query: url({ query: ME, extensions: '{nope' }),
    status: 400,
    answers: JSON_TYPE,
    code: 'BAD_REQUEST',
  },
  {
    rule: 'a mutation by GET answers 405 (Allow: POST)',
    method: 'GET',
    query: url({ query: 'mutation { x }' }),
    status: 405,
    answers: JSON_TYPE,
    code: 'BAD_REQUEST',
  },
  {
    rule: 'a syntax error by GET is 400 for graphql-response+json',
    method: 'GET',
    accept: GR,
    query: url({ query: '{ x' }),
    status: 400,
    answers: GR,
    code: 'GRAPHQL_PARSE_FAILED',
  },
];

async function send(row: Row): Promise<Response> {
  const method = row.method ?? 'POST';
  const headers: Record<string, string> = {};
  if (row.accept) headers.Accept = row.accept;
  if (method === 'POST') headers['Content-Type'] = row.type ?? JSON_TYPE;
  return call(method, `/gql${row.query ?? ''}`, { headers, body: method === 'POST' ? row.body : undefined });
}

describe('GraphQL over HTTP at /gql, row by row', () => {
  it.each(rows)('$rule', async (row) => {
    const res = await send(row);
    expect(res.status).toBe(row.status);
    expect(res.headers.get('Content-Type')?.split(';')[0] ?? null).toBe(row.answers);
    if (row.status === 405) expect(res.headers.get('Allow')).toBe('POST');
    if (row.method === 'HEAD' || row.answers === null) return;
    const body = (await res.json()) as {
      data?: unknown;
      errors?: { message: string; extensions?: { code?: string } }[];
    };
    if (row.data !== undefined) expect(body).toEqual({ data: row.data });
    if (row.code !== undefined) expect(body.errors?.[0]?.extensions?.code).toBe(row.code);
    if (row.status >= 400) expect(body.errors?.length).toBeGreaterThan(0);
  });

  it('no CORS headers: /gql answers other origins as REST does', async () => {
    const res = await call('POST', '/gql', { json: { query: ME }, headers: { Origin: 'https://elsewhere.example' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('Access-Control-Allow-Origin')).toBeNull();
    expect(res.headers.get('Access-Control-Allow-Credentials')).toBeNull();
  });
});
