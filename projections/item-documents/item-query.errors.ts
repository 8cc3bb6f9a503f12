import { defineError } from '../../src/kernel/http/errors.ts';

/**
 * A query the compiler refuses (an unknown or encrypted field, a bad operator or value, a relation that cannot be
 * listed): the message says what, `path` where in the request (`filter`, `sort`, `fields`, `query.<key>`).
 */
export const InvalidItemQuery = defineError<{ message: string; path: string[]; extensions?: Record<string, unknown> }>(
  'VALIDATION_FAILED',
  'invalid',
  (d) => d.message,
  (d) => ({ path: d.path, ...(d.extensions ? { extensions: d.extensions } : {}) }),
);

/** Filtering, sorting or aggregating by a field the caller may not read (it would leak its values). */
export const FieldNotReadable = defineError<{ collection: string; field: string; path: string[] }>(
  'PERMISSION_DENIED',
  'forbidden',
  (d) => `you may not read ${d.collection}.${d.field}`,
  (d) => ({ path: d.path }),
);

/** Relation expansion would fetch more rows or build more records than one request may. */
export const ExpansionLimit = defineError<{ limit: number; what: string }>(
  'VALIDATION_FAILED',
  'invalid',
  (d) =>
    `relation expansion exceeds the limit of ${d.limit} ${d.what} per request: ask for fewer levels or use deep[...][_limit]`,
  (d) => ({ path: ['query', 'fields'], extensions: { reason: 'expansion_limit', limit: d.limit } }),
);
