import { defineError, type ErrorObject } from '../../kernel/http/errors.ts';
import type { Dependent } from '../../../projections/item-documents/index.ts';

type At = { collection: string; id: string };

/** The item is not there (or, for reads, outside what the caller may read): 404 RECORD_NOT_FOUND. */
export const ItemNotFound = defineError<{ id: string; collection?: string }>(
  'RECORD_NOT_FOUND',
  'not_found',
  (d) => `item ${d.id}${d.collection ? ` of ${d.collection}` : ''} not found`,
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

/** The same as a function, for the call sites that build it from a list. */
export const dependentRecordsExist = (dependents: Dependent[]) => new DependentRecordsExist(dependents);
