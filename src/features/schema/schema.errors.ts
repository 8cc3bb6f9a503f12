import { defineError } from '../../kernel/http/errors.ts';

/** Where a name came from (a body or path key such as `name` or `collection`); reads name none. */
type At = { at?: string };
const atPath = (d: At) => ({ path: d.at ? [d.at] : [] });

/** The collection does not exist (or was deleted). */
export const CollectionNotFound = defineError<{ name: string } & At>(
  'NOT_FOUND',
  'not_found',
  (d) => `collection ${d.name} not found`,
  atPath,
);

/** A system collection (files) keeps the definition and fields it has; its slice writes its items. */
export const SystemCollectionFixed = defineError<{ name: string } & At>(
  'CONFLICT',
  'conflict',
  (d) => `${d.name} is a system collection: its definition and fields cannot be changed`,
  atPath,
);

/** The field does not exist; `collection` qualifies its name where the request named both. */
export const FieldNotFound = defineError<{ field: string; collection?: string } & At>(
  'NOT_FOUND',
  'not_found',
  (d) => `field ${d.collection ? `${d.collection}.` : ''}${d.field} not found`,
  atPath,
);

/** The relation does not exist. */
export const RelationNotFound = defineError<{ id: string }>(
  'NOT_FOUND',
  'not_found',
  (d) => `relation ${d.id} not found`,
  () => ({ path: ['id'] }),
);

/** A create names a collection the site has (deleted ones included: names are never reused). */
export const CollectionExists = defineError<{ name: string }>(
  'CONFLICT',
  'conflict',
  (d) => `collection ${d.name} already exists`,
  () => ({ path: ['name'] }),
);

/** A create names a field the collection has. */
export const FieldExists = defineError<{ collection: string; field: string }>(
  'CONFLICT',
  'conflict',
  (d) => `field ${d.collection}.${d.field} already exists`,
  () => ({ path: ['field'] }),
);

/** A relation is created on a field that already carries one. */
export const RelationOnFieldExists = defineError<{ collection: string; field: string }>(
  'CONFLICT',
  'conflict',
  (d) => `a relation on ${d.collection}.${d.field} already exists`,
  () => ({ path: ['field'] }),
);

/** Deleting a collection that relations of other collections still point at or go through. */
export const CollectionInUse = defineError<{ name: string; relations: string[] }>(
  'CONFLICT',
  'conflict',
  (d) => `collection ${d.name} is used by relations; remove them first`,
  (d) => ({ extensions: { relations: d.relations } }),
);

/** Deleting a field that carries a relation. */
export const FieldCarriesRelation = defineError<{ field: string }>(
  'CONFLICT',
  'conflict',
  (d) => `field ${d.field} carries a relation; remove it first`,
  () => ({ path: ['field'] }),
);

/** A workflow gates a field the collection does not have. */
export const UnknownWorkflowField = defineError<{ field: string }>(
  'VALIDATION_FAILED',
  'invalid',
  (d) => `workflow field ${d.field} does not exist`,
  () => ({ path: ['workflow', 'field'] }),
);

/** A created field takes the name of a system field (id, created_at, …). */
export const SystemFieldName = defineError<{ field: string }>(
  'VALIDATION_FAILED',
  'invalid',
  (d) => `${d.field} is a system field`,
  () => ({ path: ['field'] }),
);

/** An update removes the choices of an enum field. */
export const EnumNeedsChoices = defineError(
  'VALIDATION_FAILED',
  'invalid',
  () => 'an enum field needs choices',
  () => ({ path: ['choices'] }),
);

/** A relation names a collection that does not exist: bad input (400), not a missing resource. */
export const UnknownCollection = defineError<{ name: string; at: string }>(
  'VALIDATION_FAILED',
  'invalid',
  (d) => `unknown collection ${d.name}`,
  (d) => ({ path: [d.at] }),
);

/** A relation leaves out a key it needs; `byKind` when only its kind needs it. */
export const RelationKeyRequired = defineError<{ at: string; byKind?: boolean }>(
  'VALIDATION_FAILED',
  'invalid',
  (d) => `${d.at} is required${d.byKind ? ' for this kind of relation' : ''}`,
  (d) => ({ path: [d.at] }),
);

/** A relation names a field its collection does not have. */
export const UnknownRelationField = defineError<{ collection: string; field: string; at: string }>(
  'VALIDATION_FAILED',
  'invalid',
  (d) => `unknown field ${d.collection}.${d.field}: create the field first`,
  (d) => ({ path: [d.at] }),
);

/** The field carrying a relation has a type that cannot hold the kind's references. */
export const WrongCarrierType = defineError<{ kind: string; types: readonly string[] }>(
  'VALIDATION_FAILED',
  'invalid',
  (d) => `a ${d.kind} field must be of type ${d.types.join(' or ')}`,
  () => ({ path: ['field'] }),
);

/** A relation body gives neither the short nor the record form of its collection or field. */
export const RelationSideRequired = defineError<{ key: 'collection' | 'field' }>(
  'VALIDATION_FAILED',
  'invalid',
  (d) => `${d.key} (or its record form) is required`,
  (d) => ({ path: [d.key] }),
);

/** A relation body's record form contradicts what its short form implies. */
export const RelationFormsContradict = defineError<{ key: string; given: unknown; expected: unknown }>(
  'VALIDATION_FAILED',
  'invalid',
  (d) => `${d.key} is ${JSON.stringify(d.given)} but the relation implies ${JSON.stringify(d.expected)}`,
  (d) => ({ path: [d.key] }),
);

/** A type change whose stored values would have to be rewritten (or could be lost). */
export const TypeNotConvertible = defineError<{ field: string; from: string; to: string; why?: string }>(
  'VALIDATION_FAILED',
  'invalid',
  (d) =>
    d.why ?? `no conversion keeps ${d.field}'s ${d.from} values as ${d.to} values; add a new field and copy instead`,
  () => ({ path: ['type'] }),
);

/**
 * A rule of personal data in content: a personal field needs the collection's subject, a subject field must be able
 * to name a user, and neither may change into something that would leave sealed values unreadable or unsealed.
 */
export const PersonalDataRule = defineError<{ message: string; at: string }>(
  'VALIDATION_FAILED',
  'invalid',
  (d) => d.message,
  (d) => ({ path: [d.at] }),
);

/** `searchable: true` on a field search may not index (a type other than string, text, csv, enum; sealed values). */
export const SearchableRule = defineError<{ message: string }>(
  'VALIDATION_FAILED',
  'invalid',
  (d) => d.message,
  () => ({ path: ['searchable'] }),
);
