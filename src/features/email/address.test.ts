import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AddressHasher } from '../../contracts/auth/address-hash.ts';
import { addressHash, addressProblem, normaliseAddress } from './address.ts';

const hasher = new AddressHasher('k'.repeat(32));
/** Strings of letters that have case and composed/decomposed forms, with the odd space and symbol. */
const text = fc.string({
  unit: fc.oneof(
    fc.constantFrom(...'aAzZéÉèÈöÖçÇßİıΣσςÅåǅ\u0301\u0308\u030a ._+-@'.split('')),
    fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }),
  ),
  maxLength: 30,
});
/** The same string with the case of some characters flipped. */
const recase = (s: string, flips: boolean[]) =>
  [...s].map((c, i) => (flips[i % Math.max(flips.length, 1)] ? c.toUpperCase() : c.toLowerCase())).join('');

describe('Address normalisation', () => {
  it('treats case, Unicode composition and surrounding space as one address', () => {
    expect(normaliseAddress('  Ada@Example.COM ')).toBe('ada@example.com');
    const nfc = 'jos\u00e9@exemple.fr';
    const nfd = 'jose\u0301@exemple.fr';
    expect(normaliseAddress(nfd)).toBe(normaliseAddress(nfc));
    expect(addressHash(hasher, 'JOSE\u0301@EXEMPLE.FR')).toBe(addressHash(hasher, nfc));
  });

  it('is idempotent', () =>
    fc.assert(fc.property(text, (s) => normaliseAddress(normaliseAddress(s)) === normaliseAddress(s))));

  it('maps NFC and NFD spellings to one hash', () =>
    fc.assert(
      fc.property(text, (s) => {
        const h = addressHash(hasher, s);
        expect(addressHash(hasher, s.normalize('NFD'))).toBe(h);
        expect(addressHash(hasher, s.normalize('NFC'))).toBe(h);
      }),
    ));

  it('maps case variants whose lower case is the same to one hash', () =>
    fc.assert(
      fc.property(text, fc.array(fc.boolean(), { minLength: 1, maxLength: 8 }), (s, flips) => {
        const variant = recase(s, flips);
        fc.pre(variant.toLowerCase() === s.toLowerCase());
        expect(addressHash(hasher, variant)).toBe(addressHash(hasher, s));
      }),
    ));

  it('keeps different addresses apart', () =>
    expect(addressHash(hasher, 'ada@example.com')).not.toBe(addressHash(hasher, 'ada@example.org')));
});

describe('Address rules', () => {
  it.each([
    ['ada@example.com', null],
    ['Zoë.Ünïcödé@bücher.example', null],
    ['用户@例子.广告', null],
    ['no-at-sign', 'format'],
    ['two@at@signs', 'format'],
    ['@example.com', 'format'],
    ['ada@', 'format'],
    ['ada\r\nbcc:x@example.com', 'control_character'],
    ['ada\u0000@example.com', 'control_character'],
    ['ada\u2028@example.com', 'control_character'],
    [`${'a'.repeat(243)}@example.com`, 'too_long'],
    [`${'a'.repeat(242)}@example.com`, null],
  ])('%j → %s', (email, reason) => expect(addressProblem(email)?.reason ?? null).toBe(reason));
});
