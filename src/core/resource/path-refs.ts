/**
 * References by the forms content writes them in: `/u/<user>/p/<plot>` (a plot's url path)
 * or a plot's shortname, as grid mappings and vis blocks name plots. Pure, and the SQL that
 * finds the row a reference names.
 */
import { sql } from 'drizzle-orm';
import { resources, users } from '../../db/schema';
import type { Reference } from './paths';

const PLOT_PATH = /^\/u\/([^/]+)\/p\/([^/]+)$/;

/** The plot `ref` names (`as` is the reference itself, prefixed by `prefix`). */
export function plotReference(ref: string, prefix = ''): Extract<Reference, { kind: 'resource' }> {
  const m = PLOT_PATH.exec(ref);
  const as = `${prefix}${ref}`;
  return m
    ? { kind: 'resource', resource: 'plot', owner: m[1]!, name: m[2]!, as }
    : { kind: 'resource', resource: 'plot', owner: '', name: '', shortname: ref, as };
}

/** The id of the plot `ref` names, as SQL (null when there is none). */
export function plotIdSql(ref: string) {
  const r = plotReference(ref);
  if (r.shortname !== undefined)
    return sql`(select ${resources.id} from ${resources} where ${resources.kind} = 'plot' and ${resources.shortname} = ${r.shortname})`;
  return sql`(select ${resources.id} from ${resources} where ${resources.kind} = 'plot' and ${resources.name} = ${r.name} and ${resources.owner_id} = (select ${users.id} from ${users} where ${users.username} = ${r.owner}))`;
}
