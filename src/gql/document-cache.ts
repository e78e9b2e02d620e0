/**
 * A query's parsed and validated document, kept per isolate by the query's text: a repeated
 * query (the client sends the same few) is neither parsed nor validated again, so the
 * limits' validation rules cost nothing on repeats. The cache is bounded by entries and by
 * the text it holds, so what clients send cannot grow it.
 */
import { GraphQLError, parse, validate, type DocumentNode, type GraphQLSchema, type ValidationRule } from 'graphql';
import { specifiedRules } from 'graphql';
import { LIMITS } from './values';

export type Checked = { document: DocumentNode } | { errors: GraphQLError[] };

/** Most documents kept, and the longest query text kept (longer ones are checked each time). */
export const CACHE = { entries: 100, queryChars: 8 * 1024 } as const;

const cache = new Map<string, Checked>();
let cachedFor: GraphQLSchema | undefined;

/** The errors with `code`, unless they carry one of their own (a client reads the code). */
function coded(errors: readonly GraphQLError[], code: string): GraphQLError[] {
  return errors.map((e) =>
    e.extensions.code
      ? e
      : new GraphQLError(e.message, {
          nodes: e.nodes,
          source: e.source,
          positions: e.positions,
          path: e.path,
          originalError: e.originalError,
          extensions: { ...e.extensions, code },
        }),
  );
}

/** Parses (at most LIMITS.tokens tokens) and validates `query` against `schema` and `rules`. */
export function checkDocument(schema: GraphQLSchema, query: string, rules: readonly ValidationRule[]): Checked {
  let document: DocumentNode;
  try {
    document = parse(query, { maxTokens: LIMITS.tokens });
  } catch (err) {
    if (err instanceof GraphQLError) return { errors: coded([err], 'GRAPHQL_PARSE_FAILED') };
    throw err;
  }
  const errors = validate(schema, document, [...specifiedRules, ...rules]);
  return errors.length ? { errors: coded(errors, 'GRAPHQL_VALIDATION_FAILED') } : { document };
}

/** checkDocument, answered from the cache when the same query text was checked before. */
export function checkedDocument(schema: GraphQLSchema, query: string, rules: readonly ValidationRule[]): Checked {
  if (cachedFor !== schema) {
    cache.clear();
    cachedFor = schema;
  }
  const hit = cache.get(query);
  if (hit) {
    // Most recently used last: the oldest is the first to go.
    cache.delete(query);
    cache.set(query, hit);
    return hit;
  }
  const checked = checkDocument(schema, query, rules);
  if (query.length <= CACHE.queryChars) {
    if (cache.size >= CACHE.entries) cache.delete(cache.keys().next().value!);
    cache.set(query, checked);
  }
  return checked;
}
