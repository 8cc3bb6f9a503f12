import { defineError, type ErrorObject } from '../../kernel/http/errors.ts';
import type { Dependent } from '../../../projections/item-documents/index.ts';

type At = { collection: string; id: string };

/** The item is not there (or, for reads, outside what the caller may read): 404 RECORD_NOT_FOUND. */
export const ItemNotFound = defineError<{ id: string; collection?: string }>(
  'RECORD_NOT_FOUND',
  'not_found',
  (d) => `item ${d.id}${d.collection ? ` of ${d.collection}` : ''} not found`,
);

/** The collection an item route names does not exist. */
export const CollectionNotFound = defineError<{ collection: string }>(
  'NOT_FOUND',
  'not_found',
  (d) => `collection ${d.collection} not found`,
  () => ({ path: ['collection'] }),
);

/** A read names a time or version at which the item did not exist (or was deleted). */
export const ItemAbsentThen = defineError<{ id: string }>(
  'RECORD_NOT_FOUND',
  'not_found',
  (d) => `item ${d.id} did not exist then`,
);

/** POST to a singleton collection: its one record is written with PATCH. */
export const SingletonCreate = defineError<{ collection: string }>(
  'VALIDATION_FAILED',
  'invalid',
  (d) => `${d.collection} is a singleton: PATCH /items/${d.collection}`,
  () => ({ path: ['collection'] }),
);

/** PATCH without an id on a collection that is not a singleton. */
export const NotASingleton = defineError<{ collection: string }>(
  'VALIDATION_FAILED',
  'invalid',
  (d) => `${d.collection} is not a singleton: PATCH one item by id`,
  () => ({ path: ['collection'] }),
);

/** A create on a collection with integer keys sends no integer id. */
export const IntegerIdRequired = defineError<{ index: number }>(
  'VALIDATION_FAILED',
  'invalid',
  () => 'this collection has integer keys: send an integer id',
  (d) => ({ path: [String(d.index), 'id'] }),
);

/** A create sends an id outside the pattern of client-chosen ids. */
export const InvalidItemId = defineError<{ index: number }>(
  'VALIDATION_FAILED',
  'invalid',
  () => 'id must be 1–128 letters, digits, _ or -',
  (d) => ({ path: [String(d.index), 'id'] }),
);

/** A create's items break their collection's field rules: every problem of every item, each with its path. */
export const InvalidNewItems = defineError<ErrorObject[]>(
  'VALIDATION_FAILED',
  'invalid',
  (problems) => `${problems.length} invalid value(s)`,
  (problems) => ({ errors: problems }),
);

/** A create names an id the collection already holds. */
export const ItemExists = defineError<At>(
  'CONFLICT',
  'conflict',
  (d) => `item ${d.id} already exists in ${d.collection}`,
  () => ({ path: ['id'] }),
);

/** The values break the collection's field rules: every problem, each with its path. */
export const InvalidValues = defineError<ErrorObject[]>(
  'VALIDATION_FAILED',
  'invalid',
  (problems) => problems.map((p) => p.message).join('; '),
  (problems) => ({ errors: problems }),
);

/** A status change the collection's workflow does not allow from the current status. */
export const EditorialGateRequired = defineError<{
  collection: string;
  field: string;
  from: unknown;
  to: unknown;
  allowed: unknown[];
}>(
  'EDITORIAL_GATE_REQUIRED',
  'conflict',
  (d) => `${d.collection}: ${d.field} may not change from ${String(d.from)} to ${String(d.to)}`,
  (d) => ({ path: [d.field], extensions: { from: d.from, to: d.to, allowed: d.allowed } }),
);

/** The existing item lies outside the conditions of the caller's rule for this action. */
export const RowForbidden = defineError<{ action: string; collection: string }>(
  'PERMISSION_DENIED',
  'forbidden',
  (d) => `you may not ${d.action} this item of ${d.collection}`,
);

/** The resulting item fails the validation of the caller's rule. */
export const PermissionValidationFailed = defineError<Record<string, unknown>>(
  'VALIDATION_FAILED',
  'invalid',
  () => `the item does not meet your permission's validation`,
  (validation) => ({ extensions: { reason: 'permission_validation', validation } }),
);

/**
 * A delete that restrict relations hold up: 409 DEPENDENT_RECORDS_EXIST. The dependents go both at the top of the
 * error body (the spec's "body has dependents array") and in the error's extensions.
 */
export const DependentRecordsExist = defineError<Dependent[]>(
  'DEPENDENT_RECORDS_EXIST',
  'conflict',
  (dependents) =>
    `${dependents.filter((d) => d.onDelete === 'restrict').reduce((n, d) => n + d.count, 0)} item(s) still point here`,
  (dependents) => ({ extensions: { dependents }, body: { dependents } }),
);

/** An encrypted field is written while no encryption key is configured. */
export const EncryptionKeyRequired = defineError<{ field: string; path: string[] }>(
  'ENCRYPTION_NOT_CONFIGURED',
  'unavailable',
  (d) => `${d.field} is encrypted: set ENCRYPTION_KEY (base64 of 32 random bytes) to write it`,
  (d) => ({ path: d.path }),
);

/** Re-wrapping envelopes without an active encryption key. */
export const EncryptionNotConfigured = defineError(
  'ENCRYPTION_NOT_CONFIGURED',
  'unavailable',
  () => 'no encryption key is configured (ENCRYPTION_KEY)',
);

/**
 * A named version (a `/versions` route, `X-Svc-Draft: true`) of a collection whose `versioning` is off: a request
 * the collection does not take (400; its history is kept all the same, and versions made earlier come back when
 * versioning is turned on again).
 */
export const VersioningOff = defineError<{ collection: string; path: string[] }>(
  'VALIDATION_FAILED',
  'invalid',
  (d) => `${d.collection} has versioning off: its items have no named versions (drafts)`,
  (d) => ({ path: d.path, extensions: { reason: 'versioning_off' } }),
);

/** The item has no named version with the key (`itemId` where the request named the item). */
export const VersionNotFound = defineError<{ key: string; itemId?: string }>(
  'NOT_FOUND',
  'not_found',
  (d) => `version ${d.key}${d.itemId ? ` of item ${d.itemId}` : ''} not found`,
  () => ({ path: ['key'] }),
);

/** A named version is created with a key the item's versions hold. */
export const VersionExists = defineError<{ key: string }>(
  'CONFLICT',
  'conflict',
  (d) => `version ${d.key} exists already`,
  () => ({ path: ['key'] }),
);

/** A revert names a revision that is not one of the item's. */
export const RevisionNotFound = defineError<{ revisionId: string; itemId: string }>(
  'NOT_FOUND',
  'not_found',
  (d) => `revision ${d.revisionId} of item ${d.itemId} not found`,
  () => ({ path: ['revisionId'] }),
);

/**
 * Relation values that name no item the writer may read (absent, deleted, of another site or outside the writer's
 * read rules): 422, each problem at its field's path (the spec's VALIDATION_FAILED, with 422 as for releases).
 */
export const InvalidReferences = defineError<ErrorObject[]>(
  'VALIDATION_FAILED',
  'unprocessable',
  (problems) => problems.map((p) => p.message).join('; '),
  (problems) => ({ errors: problems }),
);
