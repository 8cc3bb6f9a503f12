import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { LocalCache } from './local-cache.ts';
import { jitteredTtlMs } from './ttl.ts';

describe('jitteredTtlMs', () => {
  it('stays within ±20 % of the TTL', () =>
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 86_400 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (s, r) => {
          const ms = jitteredTtlMs(s, 0.2, () => r);
          expect(ms).toBeGreaterThanOrEqual(Math.floor(s * 800));
          expect(ms).toBeLessThanOrEqual(Math.ceil(s * 1200));
        },
      ),
    ));
  it('spans the whole band', () => {
    expect(jitteredTtlMs(30, 0.2, () => 0)).toBe(24_000);
    expect(jitteredTtlMs(30, 0.2, () => 1)).toBe(36_000);
  });
  it('keeps 0 (disabled) at 0', () => expect(jitteredTtlMs(0, 0.2, () => 0.5)).toBe(0));
});

describe('LocalCache', () => {
  it('forgets an entry once its TTL has passed', () => {
    let now = 1000;
    const c = new LocalCache<string>({ maxEntries: 10, now: () => now });
    c.set('a', 'x', 500);
    now = 1499;
    expect(c.get('a')).toBe('x');
    now = 1500;
    expect(c.get('a')).toBeUndefined();
  });
  it('drops the oldest entry past its size', () => {
    const c = new LocalCache<number>({ maxEntries: 2 });
    c.set('a', 1, 60_000);
    c.set('b', 2, 60_000);
    c.set('c', 3, 60_000);
    expect([c.get('a'), c.get('b'), c.get('c')]).toEqual([undefined, 2, 3]);
  });
  it('does not keep an entry with no TTL', () => {
    const c = new LocalCache<number>({ maxEntries: 2 });
    c.set('a', 1, 0);
    expect(c.size).toBe(0);
  });
  it('deletes by predicate and counts only live entries', () => {
    let now = 0;
    const c = new LocalCache<number>({ maxEntries: 10, now: () => now });
    c.set('a', 1, 100);
    c.set('b', 2, 10);
    c.set('c', 3, 100);
    now = 50;
    expect(c.deleteWhere((_, v) => v <= 2)).toBe(1);
    expect([c.get('a'), c.get('c')]).toEqual([undefined, 3]);
  });
});
