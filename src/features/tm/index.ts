import type { Feature } from '../../deps.ts';
import { tmProjector } from '../../../projections/tm/index.ts';
import { tmRoutes } from './http/tm.routes.ts';

/**
 * Translation memory per site: entries (upsert by language pair and normalised source, lookup by trigram
 * candidates scored by edit distance), a glossary, TMX import and export, and translation through memory, glossary
 * and a configured provider (DeepL or LibreTranslate).
 */
export const tmFeature: Feature = {
  name: 'tm',
  projectors: [tmProjector],
  routes: tmRoutes,
};
