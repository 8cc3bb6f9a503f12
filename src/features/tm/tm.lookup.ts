import type { AppDeps } from '../../deps.ts';
import { entryCandidates, trigramSchema } from '../../../projections/tm/index.ts';
import { bestMatch, type TmMatch } from './tm.match.ts';
import { normaliseText, textHash } from '../../contracts/tm/tm.types.ts';

/** The spec's default lookup threshold (Limits). */
export const DEFAULT_THRESHOLD = 75;
/** Trigram candidates scored by edit distance per lookup. */
export const CANDIDATES = 20;

/** The site's best entry for the query in the language pair, at or over the threshold, or null. */
export async function lookupMatch(
  deps: Pick<AppDeps, 'db'>,
  siteId: string,
  q: { query: string; sourceLang: string; targetLang: string; threshold: number },
): Promise<TmMatch | null> {
  const normalised = normaliseText(q.query);
  if (!normalised) return null;
  const trgm = await trigramSchema(deps.db);
  const candidates = await entryCandidates(deps.db, siteId, {
    sourceLang: q.sourceLang,
    targetLang: q.targetLang,
    normalised,
    hash: textHash(normalised),
    limit: CANDIDATES,
    trgm,
    threshold: q.threshold,
  });
  return bestMatch(normalised, candidates, q.threshold);
}
