import { defineError } from '../../kernel/http/errors.ts';

/** `include` or `exclude` names a collection the schema does not have (at `asOf`, when given). */
export const UnknownCollectionName = defineError<{ list: 'include' | 'exclude'; index: number; name: string }>(
  'VALIDATION_FAILED',
  'invalid',
  (d) => `${d.list} names ${d.name}, which is not a collection of this site's schema`,
  (d) => ({ path: ['query', d.list, String(d.index)], extensions: { reason: 'unknown_collection', name: d.name } }),
);
