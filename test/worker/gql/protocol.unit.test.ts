// The pure parts of the GraphQL server: what a client is shown of an error, the answer's
// media type, the checked-document cache and the executable schema.
import { GraphQLError, graphqlSync, type GraphQLSchema } from 'graphql';
import { describe, expect, it } from 'vitest';
import { answerType, formatError } from '../../../src/gql/answers';
import { CACHE, checkDocument, checkedDocument } from '../../../src/gql/document-cache';
import { executableSchema } from '../../../src/gql/executable-schema';
import { LIMITS } from '../../../src/gql/values';

const SDL = `
  type Query { hello(name: String): String, items: [Item!]! }
  interface Item { id: ID! }
  type Doc implements Item { id: ID! }
`;
const schema = (): GraphQLSchema =>
  executableSchema(SDL, {
    Query: { hello: (_: unknown, a: { name?: string }) => `hi ${a.name ?? 'you'}`, items: () => [{ id: 'd1' }] },
    Item: { __resolveType: () => 'Doc' },
  });

describe('errors as a client sees them', () => {
  it('an error a resolver throws as GraphQLError is shown as it is', () => {
    const err = new GraphQLError('no such user: x', { extensions: { code: 'NOT_FOUND' } });
    expect(formatError(err)).toBe(err);
  });

  it('an error whose cause is not a GraphQLError is masked: no message, no stack, its path kept', () => {
    const err = new GraphQLError('D1_ERROR: disk on fire', {
      path: ['docs', 0],
      originalError: new Error('D1_ERROR: disk on fire'),
    });
    const shown = formatError(err) as GraphQLError;
    expect(shown.toJSON()).toEqual({
      message: 'Unexpected error.',
      path: ['docs', 0],
      extensions: { code: 'INTERNAL_SERVER_ERROR' },
    });
    expect(JSON.stringify(shown)).not.toMatch(/disk|stack/);
  });

  it('a request that is not GraphQL (a plain Error from the HTTP layer) is BAD_REQUEST with its message', () => {
    expect((formatError(new Error('Missing query')) as GraphQLError).toJSON()).toEqual({
      message: 'Missing query',
      extensions: { code: 'BAD_REQUEST' },
    });
  });
});

describe('the answer media type', () => {
  const type = (accept?: string) =>
    answerType(new Request('http://x/gql', { headers: accept ? { Accept: accept } : {} }));
  it('the first GraphQL or JSON type of the Accept list; none or */* is JSON', () => {
    expect(type()).toBe('application/json');
    expect(type('*/*')).toBe('application/json');
    expect(type('application/graphql-response+json')).toBe('application/graphql-response+json');
    expect(type('text/html, application/json;q=0.9, application/graphql-response+json')).toBe('application/json');
    expect(type('text/html, application/graphql-response+json')).toBe('application/graphql-response+json');
  });
});

describe('checked documents', () => {
  it('a syntax error is GRAPHQL_PARSE_FAILED, a validation error GRAPHQL_VALIDATION_FAILED', () => {
    const s = schema();
    const bad = checkDocument(s, '{ hello', []);
    expect('errors' in bad && bad.errors.map((e) => e.extensions.code)).toEqual(['GRAPHQL_PARSE_FAILED']);
    const unknown = checkDocument(s, '{ nothing }', []);
    expect('errors' in unknown && unknown.errors.map((e) => e.extensions.code)).toEqual(['GRAPHQL_VALIDATION_FAILED']);
  });

  it('a document over the token limit is refused by the parser, before validation', () => {
    const s = schema();
    const long = `{ ${'hello '.repeat(LIMITS.tokens)} }`;
    const checked = checkDocument(s, long, []);
    expect('errors' in checked && checked.errors[0]!.message).toMatch(/Document contains more that 5000 tokens/); // graphql-js's own wording;
  });

  it('a repeated query is answered from the cache: the same document, not parsed again', () => {
    const s = schema();
    const first = checkedDocument(s, '{ hello }', []);
    expect(checkedDocument(s, '{ hello }', [])).toBe(first);
  });

  it('the cache holds at most CACHE.entries documents, dropping the least recently used', () => {
    const s = schema();
    const first = checkedDocument(s, 'query Q0 { hello }', []);
    const kept = checkedDocument(s, 'query Q1 { hello }', []);
    for (let i = 2; i < CACHE.entries; i++) checkedDocument(s, `query Q${i} { hello }`, []);
    checkedDocument(s, 'query Q1 { hello }', []); // used again: now the newest
    checkedDocument(s, 'query Qnew { hello }', []); // one over: the oldest (Q0) goes
    expect(checkedDocument(s, 'query Q1 { hello }', [])).toBe(kept);
    expect(checkedDocument(s, 'query Q0 { hello }', [])).not.toBe(first);
  });

  it('a query longer than CACHE.queryChars is checked every time, never kept', () => {
    const s = schema();
    const long = `{ hello ${' '.repeat(CACHE.queryChars)}}`;
    expect(checkedDocument(s, long, [])).not.toBe(checkedDocument(s, long, []));
  });
});

describe('the executable schema', () => {
  it('runs the resolvers set on fields and resolves an interface to its type', () => {
    const result = graphqlSync({ schema: schema(), source: '{ hello(name: "ann") items { __typename id } }' });
    expect(result).toEqual({ data: { hello: 'hi ann', items: [{ __typename: 'Doc', id: 'd1' }] } });
  });

  it('a resolver for a type or field the schema does not have is refused at build', () => {
    expect(() => executableSchema(SDL, { Nope: { x: () => 1 } })).toThrow(/type Nope/);
    expect(() => executableSchema(SDL, { Query: { nope: () => 1 } })).toThrow(/Query.nope/);
  });
});
