/**
 * What a GraphQL client is shown: errors as they may be shown (masked when no resolver meant
 * to show them) and the media type of the answer. Pure functions (server.ts uses them).
 */
import { GraphQLError } from 'graphql';

/**
 * What a client is shown of an error. A request that is not GraphQL (no query, a body that
 * is not JSON) is BAD_REQUEST; an error no resolver meant to show (its cause is not a
 * GraphQLError: a bug, a storage failure) is masked, never its message or stack.
 */
export function formatError(err: Error | GraphQLError): Error | GraphQLError {
  if (!(err instanceof GraphQLError)) return new GraphQLError(err.message, { extensions: { code: 'BAD_REQUEST' } });
  if (err.originalError && !(err.originalError instanceof GraphQLError))
    return new GraphQLError('Unexpected error.', {
      nodes: err.nodes,
      path: err.path,
      extensions: { code: 'INTERNAL_SERVER_ERROR' },
    });
  return err;
}

/**
 * The media type of the answer as graphql-http negotiates it: the first of the client's
 * Accept list that is either GraphQL's own or JSON (`*` included).
 */
export function answerType(req: Request): string {
  for (const accept of (req.headers.get('Accept') || '*/*').replace(/\s/g, '').toLowerCase().split(',')) {
    const type = accept.split(';')[0];
    if (type === 'application/graphql-response+json') return type;
    if (type === 'application/json' || type === 'application/*' || type === '*/*') return 'application/json';
  }
  return 'application/json';
}
