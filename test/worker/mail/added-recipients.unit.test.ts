/** The recipients a list write adds (pure): what a write by someone other than the owner is checked for. */
import { describe, expect, it } from 'vitest';
import { addedRecipients } from '../../../src/mail/rules';

const stored = new Map([
  ['recipients/to', 'Ann@Example.com @bob'],
  ['recipients/cc', '+acme~ops'],
]);
const lines = (text: string) => addedRecipients(text, stored).map((i) => i.line);

describe('addedRecipients', () => {
  it('items on any stored list are not added (addresses compared case-insensitively), whichever list they move to', () => {
    expect(lines('ann@example.com +acme~ops @bob')).toEqual([]);
  });
  it('new addresses, users and groups are added; the owner (me, self) never counts', () => {
    expect(lines('ann@example.com carl@example.com @dora @ann~team me self')).toEqual([
      'carl@example.com',
      '@dora',
      '@ann~team',
    ]);
  });
  it('nothing stored: every item but the owner is added', () => {
    expect(addedRecipients('a@example.com me', new Map()).map((i) => i.line)).toEqual(['a@example.com']);
  });
});
