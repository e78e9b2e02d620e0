/** Run file names (pure): what cleanName keeps of a name that came from outside. */
import { describe, expect, it } from 'vitest';
import { cleanName } from '../../../src/jobs/files';

describe('cleanName: run input and output names', () => {
  it('drops control characters (C0, DEL, C1), quotes and bidi controls; keeps the last path segment', () => {
    expect(cleanName('a"\r\nBcc: x@example.com\r\n.txt', 'f')).toBe('aBcc: x@example.com.txt');
    expect(cleanName('a\u0085b\u009fc.txt', 'f')).toBe('abc.txt');
    expect(cleanName('invoice\u202Efdp.exe', 'f')).toBe('invoicefdp.exe');
    expect(cleanName('dir/sub\\name.csv', 'f')).toBe('name.csv');
    expect(cleanName('Grüße.txt', 'f')).toBe('Grüße.txt');
    expect(cleanName("it's.txt", 'f')).toBe("it's.txt");
  });
  it('falls back when nothing usable is left', () => {
    expect(cleanName('"\r\n"', 'output')).toBe('output');
    expect(cleanName('..', 'output')).toBe('output');
    expect(cleanName('a/', 'output')).toBe('output');
  });
});
