/** Names the spec constrains, checked in one place. */
import { badRequest } from './errors';

/** Resource names: lowercase alphanumeric with optional underscores (spec). */
export const RESOURCE_NAME = /^[a-z0-9][a-z0-9_]{0,127}$/;
/** Usernames: lowercase letters, digits and underscores, 1-64 characters (decisions.md). */
export const USERNAME = /^[a-z0-9_]{1,64}$/;
/** Token names (decisions.md). */
export const TOKEN_NAME = /^[a-z][a-z0-9._-]{0,127}$/;
/** Group and organisation slugs: no spaces, no reference punctuation. */
export const GROUP_NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/;

export function checkName(value: string, pattern: RegExp, what: string): string {
  if (!pattern.test(value)) throw badRequest(`invalid ${what} '${value}': must match ${pattern.source}`);
  return value;
}

export const resourceName = (v: string, what = 'resource name') => checkName(v, RESOURCE_NAME, what);
export const username = (v: string) => checkName(v, USERNAME, 'username');

/** IANA time zone names, as the runtime knows them (Intl throws RangeError for others). */
export function isTimeZone(name: string): boolean {
  try {
    Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}
