import { defineError } from '../../kernel/http/errors.ts';

/** The search words are longer than a search may be (`limit` characters, after trimming). */
export const SearchQueryTooLong = defineError<{ limit: number }>(
  'VALIDATION_FAILED',
  'invalid',
  (d) => `q takes at most ${d.limit} characters`,
  (d) => ({ path: ['query', 'q'], extensions: { reason: 'query_too_long', limit: d.limit } }),
);

/** `q` is missing or holds only spaces: a search needs words. */
export const SearchQueryRequired = defineError(
  'VALIDATION_FAILED',
  'invalid',
  () => 'q is required: the words to search for',
  () => ({ path: ['query', 'q'], extensions: { reason: 'query_required' } }),
);
