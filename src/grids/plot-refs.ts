/**
 * The plots a grid's mapping names (`/u/<user>/p/<plot>` or a plot's shortname), as the
 * core's references: the mapping is resolved when the dashboard is drawn, with the rights of
 * the grid's owner and of whoever wrote the mapping (composition path `grid.plots`); a grantee
 * writing it may add only plots they can read (400 on write, core/resource/references.ts).
 * Pure.
 */
import { plotReference, type Reference } from '../core/resource';
import { parseMapping } from './mapping';

/** Every plot the mapping `text` binds a label to (each reference once). */
export function mappingReferences(text: string): Reference[] {
  const refs = new Set([...parseMapping(text).values()].map((b) => b.ref));
  return [...refs].map((ref) => plotReference(ref));
}
