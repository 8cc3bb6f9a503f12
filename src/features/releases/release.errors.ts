import { declareCodes, defineError } from '../../kernel/http/errors.ts';

type Release = { releaseId: string };
type Item = { itemId: string; collection: string };

/** An item of a publish that is deleted: its `blocked` code in the refused publish's answer. */
declareCodes({ ITEM_DELETED: 'conflict' });

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

/** A release item names an item that is not there (`path`: where a request named it). */
export const ReleaseItemNotFound = defineError<Item & { path?: string[] }>(
  'ITEM_NOT_FOUND',
  'not_found',
  (d) => `item ${d.itemId} of ${d.collection} not found`,
  (d) => (d.path ? { path: d.path } : {}),
);

/** A release item pins a revision the item does not have. */
export const PinnedRevisionNotFound = defineError<{ revisionId: string; itemId: string }>(
  'NOT_FOUND',
  'not_found',
  (d) => `revision ${d.revisionId} of item ${d.itemId} not found`,
);

/** Managing releases needs an update right on some collection of the site. */
export const ReleasesNotAllowed = defineError(
  'PERMISSION_DENIED',
  'forbidden',
  () => 'your role may not manage releases',
);

/** Only users and API keys author releases: a publish acts with its author's rights. */
export const AuthorRequired = defineError(
  'PERMISSION_DENIED',
  'forbidden',
  () => 'releases are created by users and API keys',
);

/** An added item the caller could not update as PATCH would (the item check's own refusal, naming the item). */
export const ReleaseItemDenied = defineError<
  Item & { reason: string; path: string[]; extensions: Record<string, unknown> }
>(
  'PERMISSION_DENIED',
  'forbidden',
  (d) => `${d.reason} (item ${d.itemId} of ${d.collection})`,
  (d) => ({ path: d.path, extensions: { ...d.extensions, collection: d.collection, itemId: d.itemId } }),
);

/** publishAt lies in the past: 422, as releases answer their input errors. */
export const PublishAtInPast = defineError(
  'VALIDATION_FAILED',
  'unprocessable',
  () => 'publishAt is in the past',
  () => ({
    errors: [{ code: 'VALIDATION_FAILED', message: 'publishAt is in the past', path: ['publishAt'], extensions: {} }],
  }),
);

/** A release item pins a revision that is not committed yet. */
export const RevisionStaged = defineError<{ revisionId: string }>(
  'REVISION_STAGED',
  'conflict',
  (d) => `revision ${d.revisionId} is not committed yet`,
);
