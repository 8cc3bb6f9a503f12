import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bestMatch, matchScore } from './tm.match.ts';
import { normaliseText } from '../../contracts/tm/tm.types.ts';

const text = fc.string({ maxLength: 60, unit: 'grapheme' });

describe('normaliseText', () => {
  it('composes, lower-cases, collapses whitespace and trims', () => {
    expect(normaliseText('  Cafe\u0301\t AU\n\n Lait  ')).toBe('café au lait');
  });

  it('is idempotent', () => fc.assert(fc.property(text, (s) => normaliseText(normaliseText(s)) === normaliseText(s))));
});

describe('matchScore', () => {
  it("scores an entry's own source 100 after normalisation", () =>
    fc.assert(
      fc.property(text, (s) => matchScore(normaliseText(s), normaliseText(` ${s.replace(/ /g, '\t ')} `)) === 100),
    ));

  it('is symmetric and within 0–100', () =>
    fc.assert(
      fc.property(text, text, (a, b) => {
        const ab = matchScore(normaliseText(a), normaliseText(b));
        expect(ab).toBe(matchScore(normaliseText(b), normaliseText(a)));
        expect(ab).toBeGreaterThanOrEqual(0);
        expect(ab).toBeLessThanOrEqual(100);
      }),
    ));

  it('is 100 × (1 − distance / longer length), rounded', () => {
    expect(matchScore('kitten', 'sitting')).toBe(57);
    expect(matchScore('abc', '')).toBe(0);
  });
});

describe('bestMatch', () => {
  const entry = (id: string, quality: number) => ({
    id,
    sourceLang: 'en',
    targetLang: 'de',
    source: id,
    target: id,
    quality,
    entrySource: 'human' as const,
    createdBy: 'u',
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
  });

  it('takes the highest score, then the highest quality, and none under the threshold', () => {
    const cands = [
      { entry: entry('a', 50), normalised: 'hello world' },
      { entry: entry('b', 90), normalised: 'hello world' },
      { entry: entry('c', 100), normalised: 'hello there' },
    ];
    expect(bestMatch('hello world', cands, 75)).toMatchObject({ id: 'b', score: 100 });
    expect(bestMatch('goodbye', cands, 75)).toBeNull();
  });
});
