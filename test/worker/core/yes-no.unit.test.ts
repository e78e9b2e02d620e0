// The one yes/no word rule of settings and block parameters (src/core/yes-no.ts).
import { describe, expect, it } from 'vitest';
import { NO_WORDS, YES_WORDS, yesNo, yesNoWord } from '../../../src/core/yes-no';

describe('yes/no words', () => {
  it('reads every yes word as yes and every no word as no, whatever the case and surrounding blanks', () => {
    for (const w of YES_WORDS) for (const v of [w, w.toUpperCase(), ` ${w}\n`]) expect(yesNoWord(v)).toBe(true);
    for (const w of NO_WORDS) for (const v of [w, w.toUpperCase(), ` ${w}\n`]) expect(yesNoWord(v)).toBe(false);
  });

  it('knows no other word: unset, blank and anything else are neither', () => {
    for (const v of [undefined, null, '', '  ', 'maybe', 'yess', 'enabled', '2']) expect(yesNoWord(v)).toBeUndefined();
  });

  it('a setting keeps its default unless set to a yes or a no word', () => {
    for (const dflt of [true, false]) {
      for (const v of [undefined, null, '', ' ', 'maybe']) expect(yesNo(v, dflt)).toBe(dflt);
      expect(yesNo('yes', dflt)).toBe(true);
      expect(yesNo('Off', dflt)).toBe(false);
    }
  });

  it('config/enabled (on by default) is off for exactly the no words', () => {
    for (const v of ['no', 'n', 'nope', 'false', 'f', 'off', '0']) expect(yesNo(v, true)).toBe(false);
    for (const v of ['yes', 'true', 'on', '1', '', 'maybe']) expect(yesNo(v, true)).toBe(true);
  });
});
