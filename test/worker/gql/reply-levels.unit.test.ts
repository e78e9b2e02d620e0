// Nested replies and the query limits: a replies chain counts as its first level for depth
// and cost, and is bounded on its own.
import { parse, print, type OperationDefinitionNode } from 'graphql';
import { describe, expect, it } from 'vitest';
import { collapsedOperation, collapseReplies, REPLY_LEVELS } from '../../../src/gql/reply-levels';

const op = (q: string) => parse(q).definitions[0] as OperationDefinitionNode;
const nested = (levels: number) => {
  let sel = 'slug';
  for (let i = 0; i < levels; i++) sel = `slug replies { ${sel} }`;
  return `{ docs { topics { comments { ${sel} } } } }`;
};

describe('collapseReplies', () => {
  it('keeps the first replies level and puts the fields of the levels nested in it there', () => {
    const out = collapsedOperation(op(nested(3)));
    expect(print(out).replace(/\s+/g, ' ')).toBe(
      '{ docs { topics { comments { slug replies { slug slug slug } } } } }',
    );
  });

  it('counts the longest chain of replies levels', () => {
    expect(collapseReplies(op(nested(0)).selectionSet).levels).toBe(0);
    expect(collapseReplies(op(nested(3)).selectionSet).levels).toBe(3);
    expect(
      collapseReplies(
        op(
          `{ a: docs { topics { comments { replies { slug } } } } b: docs { topics { comments { ${'replies { '.repeat(5)}slug${' }'.repeat(5)} } } } }`,
        ).selectionSet,
      ).levels,
    ).toBe(5);
  });

  it('looks into inline fragments and leaves other fields alone', () => {
    const q = '{ docs { ... on Doc { topics { comments { replies { replies { slug } } } } } id } }';
    const { set, levels } = collapseReplies(op(q).selectionSet);
    expect(levels).toBe(2);
    expect(
      print({ kind: op(q).kind, operation: op(q).operation, selectionSet: set } as OperationDefinitionNode).replace(
        /\s+/g,
        ' ',
      ),
    ).toBe(
      '{ docs { ... on Doc { topics { comments { replies { slug } } } } id } }', // the nested level's slug joined the first
    );
  });

  it('has a bound above what the client asks (12 levels)', () => {
    expect(REPLY_LEVELS).toBeGreaterThanOrEqual(12);
  });
});
