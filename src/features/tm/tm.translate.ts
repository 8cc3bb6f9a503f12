import type { AppDeps } from '../../deps.ts';
import { readAsSite } from '../../kernel/tenancy/site.ts';
import { termsOfPair } from '../../../projections/tm/index.ts';
import { filledText, markupOf, planGlossary, restorePlaceholders } from './glossary.apply.ts';
import { TranslationProviderUnavailable } from './tm.errors.ts';
import { DEFAULT_THRESHOLD, lookupMatch } from './tm.lookup.ts';
import type { TmMatch } from './tm.match.ts';
import type { TranslationProvider } from './translate/provider.ts';

/** Glossary terms of a pair the pipeline applies at most (the longest first). */
export const MAX_TERMS = 1000;

/** Where a translation came from. */
export type TranslationSource = 'tm' | 'glossary' | 'provider';

export interface Translation {
  text: string;
  source: TranslationSource;
  match?: TmMatch;
}

/**
 * Memory first (a match at or over the default threshold wins), then the glossary (terms become placeholders the
 * provider keeps; a text the terms wholly cover needs no provider), then the provider. Provider answers are not
 * written to the memory (docs/decisions.md).
 */
export async function translateText(
  deps: Pick<AppDeps, 'db'>,
  siteId: string,
  provider: TranslationProvider | null,
  input: { text: string; from: string; to: string },
): Promise<Translation> {
  const { text, from, to } = input;
  const match = await lookupMatch(deps, siteId, {
    query: text,
    sourceLang: from,
    targetLang: to,
    threshold: DEFAULT_THRESHOLD,
  });
  if (match) return { text: match.target, source: 'tm', match };
  const terms = await readAsSite(deps.db, siteId, (db) => termsOfPair(db, siteId, from, to, MAX_TERMS));
  const plan = planGlossary(text, terms);
  if (plan.covered) return { text: filledText(plan), source: 'glossary' };
  if (!provider) throw new TranslationProviderUnavailable();
  if (!plan.translations.length) {
    const [out] = await provider.translate([text], from, to, { markup: false });
    return { text: out!, source: 'provider' };
  }
  const [out] = await provider.translate([markupOf(plan)], from, to, { markup: true });
  return { text: restorePlaceholders(out!, plan.translations), source: 'provider' };
}
