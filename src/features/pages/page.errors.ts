import { defineError } from '../../kernel/http/errors.ts';

/** The page does not exist (or was deleted). */
export const PageNotFound = defineError<{ pageId: string }>(
  'NOT_FOUND',
  'not_found',
  (d) => `page ${d.pageId} not found`,
);

/** A create names a page id that is taken. */
export const PageExists = defineError<{ pageId: string }>(
  'CONFLICT',
  'conflict',
  (d) => `page ${d.pageId} already exists`,
  () => ({ path: ['id'] }),
);

/** A slug outside the spec's pattern or length. */
export const InvalidSlug = defineError<{ slug: string }>(
  'VALIDATION_FAILED',
  'invalid',
  (d) => `invalid slug ${JSON.stringify(d.slug)}`,
  () => ({ path: ['slug'] }),
);

/** Another page of the site holds the slug. */
export const SlugTaken = defineError<{ slug: string }>(
  'CONFLICT',
  'conflict',
  (d) => `another page already has the slug ${d.slug}`,
  (d) => ({ path: ['slug'], extensions: { slug: d.slug } }),
);

/** The page's slug changed between the caller's read and its write: the client retries. */
export const PageChangedMeanwhile = defineError(
  'CONFLICT',
  'conflict',
  () => 'the page was changed by someone else; retry',
  () => ({ path: ['slug'] }),
);
