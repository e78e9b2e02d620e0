/**
 * Document variables (contract; the documents area implements it). Rendering imports
 * these to show `{/u/<user>/d/<doc>/v/<var>}` references as formatted values.
 */
import type { Db } from '../core/context';

export interface DocVar {
  name: string;
  value: string;
  type: 'number' | 'relative' | 'date' | 'text';
  format: string;
  about: string;
  threshold: string;
}

export interface FormattedVar {
  /** The formatted value (the `txt` render). */
  text: string;
  /** Colour band: green up, red down, or none. */
  band: 'up' | 'down' | 'none';
  /** CSS colour of the band ('' for none). */
  color: string;
}

export function formatVar(v: DocVar): FormattedVar {
  return { text: v.value, band: 'none', color: '' };
}

/** Every variable of a document. */
export async function readVars(env: Env, db: Db, resourceId: number): Promise<DocVar[]> {
  void env;
  void db;
  void resourceId;
  return [];
}
