/** Names the API constrains, checked in one place. */
import { base64url, randomBytes } from './crypto';
import { badRequest } from './errors';

/** Resource names: lowercase alphanumeric with optional underscores (spec). */
export const RESOURCE_NAME = /^[a-z0-9][a-z0-9_]{0,127}$/;
/** Usernames: lowercase letters, digits and underscores, 1-64 characters. */
export const USERNAME = /^[a-z0-9_]{1,64}$/;
/** Token names. */
export const TOKEN_NAME = /^[a-z][a-z0-9._-]{0,127}$/;
/** Group and organisation slugs: no spaces, no reference punctuation. */
export const GROUP_NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/;

export function checkName(value: string, pattern: RegExp, what: string): string {
  return checkKeyName(value, { pattern, max: Infinity, what });
}

/** A fresh shortname (of a resource, behind `/s/:shortname`, and of a run): 8 random characters, `[a-z0-9]`. */
export const newShortname = (): string =>
  base64url(randomBytes(6))
    .toLowerCase()
    .replace(/[^a-z0-9]/g, 'x');

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

/**
 * A name that becomes part of a storage key (an R2 object key, a D1 row key): its rule.
 * Every route that builds a key from a caller's name checks the rule first, whatever its
 * method, so a name that breaks it is a 400 before D1 or R2 is touched (R2 refuses keys
 * over 1024 bytes with an error that would otherwise surface as a 500).
 */
export interface KeyNameRule {
  pattern: RegExp;
  /** Characters at most (the pattern may bound it too; this gives the clearer message). */
  max: number;
  what: string;
}

/** Why a name breaks its rule (pure), or undefined. */
export function keyNameProblem(value: string, rule: KeyNameRule): string | undefined {
  if (value.length > rule.max) return `${rule.what} is at most ${rule.max} characters (got ${value.length})`;
  if (!rule.pattern.test(value)) return `invalid ${rule.what} '${value}': must match ${rule.pattern.source}`;
  return undefined;
}

/** The name, or a 400 naming the broken rule. */
export function checkKeyName(value: string, rule: KeyNameRule): string {
  const problem = keyNameProblem(value, rule);
  if (problem) throw badRequest(problem);
  return value;
}
