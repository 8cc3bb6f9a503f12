import { z } from 'zod';
import { FIELD_TYPES, ON_DELETE, PRIMARY_KEY_TYPES } from '../../../contracts/schema/schema.types.ts';
import {
  checkFieldAttributes,
  CollectionSubject,
  CreateCollectionBody,
  fieldShape,
  SchemaName,
} from '../../../contracts/schema/schema.records.ts';
import { pathId } from '../../../kernel/http/path-params.ts';

export { CreateCollectionBody, RelationRecord } from '../../../contracts/schema/schema.records.ts';

export const CollectionParams = z.object({ name: SchemaName });
export const UpdateCollectionBody = CreateCollectionBody.pick({
  displayName: true,
  icon: true,
  note: true,
  status_field: true,
  sort_field: true,
  workflow: true,
  subject: true,
  versioning: true,
})
  .strict()
  .refine((b) => Object.keys(b).length > 0, { message: 'nothing to update' });

export const FieldParams = z.object({ collection: SchemaName });
export const FieldItemParams = z.object({ collection: SchemaName, field: SchemaName });
export const CreateFieldBody = z
  .object({ field: SchemaName, ...fieldShape })
  .strict()
  .superRefine(checkFieldAttributes);
// The type, the encryption and whether a field is personal never change: stored values would no longer match them.
const { type: _type, encrypted: _encrypted, personal: _personal, ...changeable } = fieldShape;
export const UpdateFieldBody = z
  .object(changeable)
  .strict()
  .refine((b) => Object.keys(b).length > 0, { message: 'nothing to update' });

export const RelationParams = z.object({ id: pathId(64) });
export const UpdateRelationBody = z.object({ onDelete: z.enum(ON_DELETE) }).strict();

/** A collection as the API returns it: its definition plus lifecycle timestamps. */
export const CollectionRecord = z
  .object({
    name: z.string(),
    displayName: z.string().nullable(),
    icon: z.string().nullable(),
    note: z.string().nullable(),
    singleton: z.boolean(),
    status_field: z.string().nullable(),
    sort_field: z.string().nullable(),
    primaryKeyType: z.enum(PRIMARY_KEY_TYPES),
    workflow: z
      .object({
        field: z.string(),
        transitions: z.record(z.string(), z.array(z.string())),
        initial: z.array(z.string()).optional(),
      })
      .nullable()
      .optional(),
    subject: CollectionSubject.nullable().optional(),
    versioning: z.boolean().describe('Named versions (drafts) of the items; history is kept either way'),
    createdAt: z.string(),
    updatedAt: z.string(),
    deletedAt: z.string().nullable(),
  })
  .meta({ id: 'Collection' });

/** A field of a collection. */
export const FieldRecord = z
  .object({
    collection: z.string(),
    field: z.string(),
    type: z.enum(FIELD_TYPES),
    choices: z.array(z.string()).nullable(),
    interface: z.string().nullable(),
    display: z.string().nullable(),
    options: z.record(z.string(), z.unknown()),
    required: z.boolean(),
    nullable: z.boolean(),
    readonly: z.boolean(),
    encrypted: z.boolean(),
    unique: z.boolean(),
    sort: z.number().nullable(),
    default: z.unknown(),
    personal: z.boolean().default(false),
    erasedValue: z.unknown().optional(),
    searchable: z.boolean().nullable().optional(),
  })
  .meta({ id: 'Field' });

export const TotalMeta = z.object({ total: z.number().int() });
