/**
 * The yes/no words: how a text setting reads as on or off, in configuration entries
 * (`config/enabled` of e-mails and jobs, `config/network`) and in block parameters
 * (`include bio: no`). One vocabulary; case and surrounding blanks do not matter.
 */

/** Words that mean yes. */
export const YES_WORDS: readonly string[] = ['yes', 'y', 'true', 't', 'on', '1'];
/** Words that mean no (`config/enabled` is off for exactly these). */
export const NO_WORDS: readonly string[] = ['no', 'n', 'nope', 'false', 'f', 'off', '0'];

/** true for a yes word, false for a no word, undefined for anything else (unset and blank included). */
export function yesNoWord(value: string | null | undefined): boolean | undefined {
  const v = value?.trim().toLowerCase() ?? '';
  if (YES_WORDS.includes(v)) return true;
  if (NO_WORDS.includes(v)) return false;
  return undefined;
}

/**
 * A yes/no setting: a yes word is on, a no word is off, and anything else (unset, blank,
 * a word of neither list) keeps the setting's default. So a setting that is on by
 * default (`config/enabled`) is off only when set to a no word.
 */
export function yesNo(value: string | null | undefined, dflt: boolean): boolean {
  return yesNoWord(value) ?? dflt;
}
