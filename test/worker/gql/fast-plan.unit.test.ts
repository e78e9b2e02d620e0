// The fast path's plan (src/gql/fast-plan.ts): which queries it takes, and what it
// compiles for them (response keys in order, shapes of the values).
import { buildSchema, parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { cachedPlanOf, planOf, type Shape } from '../../../src/gql/fast-plan';
import typeDefs from '../../../src/gql/schema.graphql';
import { meList, rootList, VIS_FIELDS } from './client-queries';

const schema = buildSchema(typeDefs);
const plan = (query: string, operationName?: string) => planOf(schema, parse(query), operationName);
const taken = (query: string, operationName?: string) => plan(query, operationName) !== null;

/** A shape as text: `[Doc!]!`, leaves by their type's name, objects by their keys. */
function show(s: Shape): string {
  switch (s.kind) {
    case 'nonNull':
      return `${show(s.of)}!`;
    case 'list':
      return `[${show(s.of)}]`;
    case 'leaf':
      return s.type.name;
    case 'typename':
      return '__typename';
    case 'object':
      return `${s.type.name}{${s.fields.map((f) => `${f.key}:${show(f.shape)}`).join(' ')}}`;
  }
}

describe('planOf: the queries the fast path takes', () => {
  it("takes the client's listings: its own items under me, another user's at the root", () => {
    for (const kind of ['docs', 'grids', 'mails', 'jobs']) {
      expect(taken(meList(kind, VIS_FIELDS)), kind).toBe(true);
      expect(taken(rootList(kind, VIS_FIELDS)), kind).toBe(true);
    }
    expect(taken('{ me { username timezone email } plots { id } }')).toBe(true);
  });

  it('compiles the response keys in the order asked, aliases and __typename included', () => {
    const p = plan(
      '{ mine: me { username first: docs(limit: 2) { __typename id author { username } tags { type } } } }',
    )!;
    expect(p.fields.map((f) => `${f.key}:${show(f.shape)}`)).toEqual([
      'mine:Me{username:String! first:[Doc{__typename:__typename id:ID! author:Author{username:String!}! tags:[Tag{type:TagType!}!]!}!]!}',
    ]);
  });

  it('leaves to graphql-js what it alone answers right: fragments, directives, repeated keys', () => {
    expect(taken('{ docs { ...f } } fragment f on Doc { id }')).toBe(false);
    expect(taken('{ docs { ... on Doc { id } } }')).toBe(false);
    expect(taken('{ docs { id @include(if: true) } }')).toBe(false);
    expect(taken('query @skip(if: false) { docs { id } }')).toBe(false);
    expect(taken('{ docs { id id } }')).toBe(false);
    expect(taken('{ docs { id } docs { name } }')).toBe(false);
  });

  it('takes only me and the listings at the root, and only the scalars and listings of me', () => {
    expect(taken('{ users { username } }')).toBe(false);
    expect(taken('{ groups { id } }')).toBe(false);
    expect(taken('{ __schema { queryType { name } } }')).toBe(false);
    expect(taken('{ me { founder { id } } }')).toBe(false);
    expect(taken('{ me { tokens { token_name } } }')).toBe(false);
  });

  it('picks the operation graphql-js runs; none when it would answer an error', () => {
    const two = 'query A { docs { id } } query B { users { username } }';
    expect(taken(two, 'A')).toBe(true);
    expect(taken(two, 'B')).toBe(false);
    expect(taken(two)).toBe(false);
    expect(taken(two, 'C')).toBe(false);
  });

  it('keeps a plan per document and operation', () => {
    const doc = parse('query A { docs { id } } query B { users { username } }');
    const a = cachedPlanOf(schema, doc, 'A');
    expect(a).not.toBeNull();
    expect(cachedPlanOf(schema, doc, 'A')).toBe(a);
    expect(cachedPlanOf(schema, doc, 'B')).toBeNull();
  });
});
