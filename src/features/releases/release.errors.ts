import { defineError } from '../../kernel/http/errors.ts';

type Release = { releaseId: string };
type Item = { itemId: string; collection: string };

/** The release does not exist (or was deleted). */
export const ReleaseNotFound = defineError<Release>(
  'NOT_FOUND',
  'not_found',
  (d) => `release ${d.releaseId} not found`,
);

/** A create names a release id that exists. */
export const ReleaseExists = defineError<Release>('CONFLICT', 'conflict', (d) => `release ${d.releaseId} exists`);

/** Editing the items or meta of a published release. */
export const ReleaseImmutable = defineError<Release>(
  'RELEASE_IMMUTABLE',
  'conflict',
  (d) => `release ${d.releaseId} is published`,
);

/** Publishing a release that is published. */
export const AlreadyPublished = defineError<Release>(
  'ALREADY_PUBLISHED',
  'conflict',
  (d) => `release ${d.releaseId} is published`,
);

/** A publish is running: the release waits for its outcome. */
export const PublishInProgress = defineError<Release>(
  'CONFLICT',
  'conflict',
  (d) => `release ${d.releaseId} is being published`,
);

/** Recording an outcome of a publish that is not running. */
export const NotPublishing = defineError<Release>(
  'CONFLICT',
  'conflict',
  (d) => `release ${d.releaseId} is not being published`,
);

/** Publishing a release without items: 422, as the spec says. */
export const EmptyRelease = defineError<Release>(
  'EMPTY_RELEASE',
  'unprocessable',
  (d) => `release ${d.releaseId} has no items`,
);

/** A release item names an item that is not there. */
export const ReleaseItemNotFound = defineError<Item>(
  'ITEM_NOT_FOUND',
  'not_found',
  (d) => `item ${d.itemId} of ${d.collection} not found`,
);

/** A release item pins a revision that is not committed yet. */
export const RevisionStaged = defineError<{ revisionId: string }>(
  'REVISION_STAGED',
  'conflict',
  (d) => `revision ${d.revisionId} is not committed yet`,
);
