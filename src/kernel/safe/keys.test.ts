import { describe, expect, it } from 'vitest';
import { dict, dictFrom, isForbiddenKey, isInheritedName, own } from './keys.ts';

describe('safe keys', () => {
  it('names the three keys that reach a prototype', () => {
    expect(['__proto__', 'constructor', 'prototype'].map(isForbiddenKey)).toEqual([true, true, true]);
    expect(isForbiddenKey('title')).toBe(false);
  });

  it('knows every inherited name', () => {
    expect(isInheritedName('hasOwnProperty')).toBe(true);
    expect(isInheritedName('valueOf')).toBe(true);
    expect(isInheritedName('views')).toBe(false);
  });

  it('a dict takes __proto__ as an ordinary key and leaves Object.prototype alone', () => {
    const d = dict<unknown>();
    d['__proto__'] = { polluted: true };
    expect(Object.keys(d)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const e = dictFrom([['constructor', 1]]);
    expect(e.constructor).toBe(1);
  });

  it('own reads only own keys', () => {
    expect(own({}, 'constructor')).toBeUndefined();
    expect(own({ a: 1 }, 'a')).toBe(1);
    expect(own(null, 'a')).toBeUndefined();
  });
});
