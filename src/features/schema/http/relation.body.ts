import { z } from 'zod';
import { isInheritedName } from '../../../kernel/safe/keys.ts';
import { RelationFormsContradict, RelationSideRequired } from '../schema.errors.ts';
import { NAME_PATTERN, ON_DELETE, RELATION_KINDS, type RelationDef } from '../../../contracts/schema/schema.types.ts';

const name = z
  .string()
  .regex(NAME_PATTERN, 'names are 1–63 characters: a-z, 0-9 and _, starting with a letter')
  .refine((n) => !isInheritedName(n), 'names of object prototype members (constructor, …) are reserved');
const optionalName = name.nullable().optional();

/**
 * The body of `POST /relations`: the short form (`collection`, `field`, `target`, …) and the Relation record as `GET`
 * returns it (`manyCollection`, `manyField`, `oneCollection`, `oneField`, and its `id`, which is replaced by a new one),
 * so a relation read from one site can be posted to another.
 */
export const CreateRelationBody = z
  .object({
    id: z.string().max(64).optional(),
    kind: z.enum(RELATION_KINDS),
    collection: name.optional(),
    field: name.optional(),
    target: optionalName,
    junctionCollection: optionalName,
    targetField: optionalName,
    junctionField: optionalName,
    manyCollection: optionalName,
    manyField: optionalName,
    oneCollection: optionalName,
    oneField: optionalName,
    onDelete: z.enum(ON_DELETE).default('set null'),
  })
  .strict();
export type CreateRelationInput = z.infer<typeof CreateRelationBody>;

type Short = Pick<RelationDef, 'collection' | 'field' | 'target'>;

/** The short form's carrier and target as the record form names them (the inverse of `toRelationRecord`). */
function fromRecordForm(b: CreateRelationInput): Partial<Short> {
  if (b.kind === 'm2o')
    return { collection: b.manyCollection ?? undefined, field: b.manyField ?? undefined, target: b.oneCollection };
  const viaJunction = b.junctionCollection !== undefined && b.junctionCollection !== null;
  return {
    collection: b.oneCollection ?? undefined,
    field: b.oneField ?? undefined,
    ...(viaJunction || b.manyCollection === undefined ? {} : { target: b.manyCollection }),
  };
}

/** The record-form keys that must equal what the short form implies (null where the kind has no such side). */
function impliedRecord(kind: RelationDef['kind'], r: Short & { junctionCollection: string | null }) {
  const m2o = kind === 'm2o';
  return {
    manyCollection: m2o ? r.collection : (r.junctionCollection ?? r.target),
    manyField: m2o ? r.field : null,
    oneCollection: m2o ? r.target : r.collection,
    oneField: m2o ? null : r.field,
  };
}

/** Resolves either form (or both) into one definition; contradicting keys are refused with 400 naming the key. */
export function relationFromBody(b: CreateRelationInput, id: string): RelationDef {
  const derived = fromRecordForm(b);
  const pick = <K extends keyof Short>(key: K): Short[K] | undefined => {
    const short = b[key];
    const rec = derived[key];
    if (short !== undefined && rec !== undefined && short !== rec)
      throw new RelationFormsContradict({ key, given: short, expected: rec });
    return (short ?? rec) as Short[K] | undefined;
  };
  const collection = pick('collection');
  const field = pick('field');
  if (!collection) throw new RelationSideRequired({ key: 'collection' });
  if (!field) throw new RelationSideRequired({ key: 'field' });
  const target = pick('target') ?? null;
  const junctionCollection = b.junctionCollection ?? null;
  const implied = impliedRecord(b.kind, { collection, field, target, junctionCollection });
  for (const key of ['manyCollection', 'manyField', 'oneCollection', 'oneField'] as const) {
    const given = b[key];
    if (given !== undefined && given !== implied[key])
      throw new RelationFormsContradict({ key, given, expected: implied[key] });
  }
  const m2m = b.kind === 'm2m';
  return {
    id,
    kind: b.kind,
    collection,
    field,
    target,
    junctionCollection,
    targetField: b.targetField ?? (m2m && target ? `${target}_id` : null),
    junctionField: b.junctionField ?? (m2m ? `${collection}_id` : null),
    onDelete: b.onDelete,
  };
}
