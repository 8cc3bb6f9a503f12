import { distance } from 'fastest-levenshtein';
import type { TmEntryRecord } from '../../contracts/tm/tm.types.ts';

/**
 * How alike two normalised texts are, 0–100: 100 × (1 − edit distance / the longer length), rounded; equal texts
 * score 100. Symmetric, since the edit distance is.
 */
export function matchScore(a: string, b: string): number {
  if (a === b) return 100;
  const longest = Math.max(a.length, b.length);
  return Math.round(100 * (1 - distance(a, b) / longest));
}

/** A memory match: the entry and its score against the query. */
export type TmMatch = TmEntryRecord & { score: number };

/**
 * The best candidate at or over the threshold: the highest score, then the highest quality, then the most recently
 * updated; null when none reaches it.
 */
export function bestMatch(
  normalisedQuery: string,
  candidates: readonly { entry: TmEntryRecord; normalised: string }[],
  threshold: number,
): TmMatch | null {
  let best: TmMatch | null = null;
  for (const c of candidates) {
    const score = matchScore(normalisedQuery, c.normalised);
    if (score < threshold) continue;
    const m = { ...c.entry, score };
    if (
      !best ||
      m.score > best.score ||
      (m.score === best.score &&
        (m.quality > best.quality || (m.quality === best.quality && m.updatedAt > best.updatedAt)))
    )
      best = m;
  }
  return best;
}
