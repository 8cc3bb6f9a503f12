import { defineError } from '../../kernel/http/errors.ts';

/** The item whose references are listed or resolved is missing, or outside what the caller may read. */
export const ReferencedItemNotFound = defineError<{ id: string; collection: string }>(
  'NOT_FOUND',
  'not_found',
  (d) => `item ${d.id} of ${d.collection} not found`,
  () => ({ path: ['id'] }),
);

/** Resolving names a relation that does not point at the item's collection. */
export const RelationNotPointingHere = defineError<{ relation: string; collection: string }>(
  'NOT_FOUND',
  'not_found',
  (d) => `relation ${d.relation} does not point at ${d.collection}`,
  () => ({ path: ['relation'] }),
);

/** `hard` (purging) sent with an action other than delete. */
export const HardDeleteOnly = defineError(
  'VALIDATION_FAILED',
  'invalid',
  () => 'hard applies to the delete action only',
  () => ({ path: ['hard'] }),
);

/** Resolving would write a referencing field the caller's rule does not let it write. */
export const ReferenceFieldForbidden = defineError<{ collection: string; field: string }>(
  'PERMISSION_DENIED',
  'forbidden',
  (d) => `you may not write ${d.collection}.${d.field}`,
);

/**
 * Referencing items lie outside the conditions of the caller's rule for what resolving does to them; the error names
 * them (`ids`) only where the caller may read them, else only their collection.
 */
export const ReferencingItemsForbidden = defineError<{
  verb: 'delete' | 'update';
  collection: string;
  ids: string[];
  count: number;
}>(
  'PERMISSION_DENIED',
  'forbidden',
  (d) =>
    `you may not ${d.verb} ${d.ids.length ? `${d.collection} ${d.ids[0]}` : `an item of ${d.collection}`}, which points here`,
  (d) => ({ extensions: { collection: d.collection, ids: d.ids, count: d.count } }),
);

/** set_null on a reference whose field is required or not nullable. */
export const ReferenceRequired = defineError<{ collection: string; field: string }>(
  'FIELD_REQUIRED',
  'conflict',
  (d) => `${d.collection}.${d.field} is required: it cannot be set to null`,
  () => ({ path: ['relation'] }),
);

/** reassign to an item that is missing, unreadable to the caller, or the item itself: 422, as the spec says. */
export const InvalidReassignTarget = defineError<{ collection: string }>(
  'INVALID_TARGET',
  'unprocessable',
  (d) => `newTargetId must name another live item of ${d.collection}`,
  () => ({ path: ['newTargetId'] }),
);
