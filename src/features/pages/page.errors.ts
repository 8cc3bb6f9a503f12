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

/** Delivery finds no published page at the slug; X-Svc-Cache tells whether a remembered miss answered. */
export const PageNotDelivered = defineError<{ cache: 'miss' | 'negative' }>(
  'NOT_FOUND',
  'not_found',
  () => 'page not found',
  (d) => ({ headers: { 'x-svc-cache': d.cache } }),
);

/**
 * A delivered page's blocks together reach more related records than one render may fetch or answer (the item
 * list's expansion budget, shared by every block of the page): its editors narrow the blocks' paths.
 */
export const PageTooLarge = defineError<{ limit: number }>(
  'VALIDATION_FAILED',
  'unprocessable',
  (d) =>
    `the page's blocks together expand more related records than one delivery may fetch or answer (limit ${d.limit}): its editors name fewer relation paths`,
  (d) => ({ path: ['layoutConfig'], extensions: { reason: 'expansion_limit', limit: d.limit } }),
);

/** A purge tag or key that is malformed or names another site than the active one. */
export const InvalidPurgeElement = defineError<{ kind: 'tags' | 'keys'; index: number; element: string; why: string }>(
  'VALIDATION_FAILED',
  'invalid',
  (d) => `${d.kind} element ${JSON.stringify(d.element)} ${d.why}`,
  (d) => ({ path: ['body', d.kind, String(d.index)], extensions: { element: d.element } }),
);
