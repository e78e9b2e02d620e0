/**
 * The read-only entries every resource kind with a canonical url has, as documents
 * declare them: `shortname` (the unique shortname behind the url) and `url`.
 */
import type { EntrySpec, ResourceKind } from './resource';

/** `shortname` and `url` of a kind (`kind` is read when asked, so it may be the kind being declared). */
export function canonicalEntries(kind: () => ResourceKind): EntrySpec[] {
  return [
    {
      path: 'shortname',
      access: 'r',
      compute: (rc) => rc.resource.shortname,
      summary: 'Unique shortname behind the canonical url',
      example: 'k3x9q2vd',
    },
    {
      path: 'url',
      access: 'r',
      compute: (rc) => kind().url!(rc.env, rc.owner.username, rc.resource.name),
      summary: 'Canonical url',
      // Read when the routes are declared: the kind's own url of an example resource.
      get example() {
        return kind().url!({ PUBLIC_ORIGIN: 'https://platform.example' } as Env, 'alice', 'q3_report');
      },
    },
  ];
}

/**
 * `config/type` of grids and jobs: a lowercase word (at most 32 characters), stored for the clients; nothing renders by
 * it.
 */
const TYPE_WORD = /^[a-z][a-z0-9_-]{0,31}$/;
export function typeWordProblem(value: string): string | undefined {
  return TYPE_WORD.test(value)
    ? undefined
    : `'${value.slice(0, 64)}' is not a type: a lowercase word of letters, digits, '-' and '_', at most 32 characters`;
}
