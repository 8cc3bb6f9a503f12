import { z } from 'zod';
import { isInheritedName } from '../../kernel/safe/keys.ts';
import {
  FIELD_TYPES,
  NAME_PATTERN,
  type FieldType,
  ON_DELETE,
  PRIMARY_KEY_TYPES,
  RELATION_KINDS,
  searchableRefusal,
} from './schema.types.ts';

/** A collection or field name. */
export const SchemaName = z
  .string()
  .regex(NAME_PATTERN, 'names are 1–63 characters: a-z, 0-9 and _, starting with a letter')
  .refine((n) => !isInheritedName(n), 'names of object prototype members (constructor, …) are reserved');
const text = z.string().max(500);

/** Whose personal data the collection's `personal` fields hold: the item itself, or the user a field names. */
export const CollectionSubject = z
  .discriminatedUnion('from', [
    z.object({ from: z.literal('item') }).strict(),
    z.object({ from: z.literal('field'), field: SchemaName }).strict(),
  ])
  .meta({ id: 'CollectionSubject' });
/** A collection's definition as the schema API takes it; a configuration manifest's collections follow it. */
export const CreateCollectionBody = z
  .object({
    name: SchemaName,
    displayName: text.nullable().optional(),
    icon: z.string().max(100).nullable().optional(),
    note: z.string().max(5000).nullable().optional(),
    singleton: z.boolean().default(false),
    status_field: SchemaName.nullable().optional(),
    sort_field: SchemaName.nullable().optional(),
    primaryKeyType: z.enum(PRIMARY_KEY_TYPES).default('nanoid'),
    workflow: z
      .object({
        field: SchemaName,
        transitions: z.record(z.string().min(1).max(64), z.array(z.string().min(1).max(64)).max(50)),
        initial: z.array(z.string().min(1).max(64)).min(1).max(50).optional(),
      })
      .strict()
      .nullable()
      .optional(),
    subject: CollectionSubject.nullable().optional(),
    /** Named versions (drafts) of the items; off refuses them. History is kept either way. */
    versioning: z.boolean().optional(),
  })
  .strict();

/** A field's attributes as the schema API takes them (a manifest's fields too), checked by `checkFieldAttributes`. */
export const fieldShape = {
  type: z.enum(FIELD_TYPES),
  choices: z.array(z.string().min(1).max(200)).min(1).max(500).nullable().optional(),
  interface: z.string().max(100).nullable().optional(),
  display: z.string().max(200).nullable().optional(),
  options: z.record(z.string(), z.unknown()).optional(),
  required: z.boolean().optional(),
  nullable: z.boolean().optional(),
  readonly: z.boolean().optional(),
  encrypted: z.boolean().optional(),
  unique: z.boolean().optional(),
  sort: z.number().int().min(0).max(1_000_000).nullable().optional(),
  default: z.unknown().optional(),
  personal: z.boolean().optional(),
  erasedValue: z.unknown().optional(),
  /** Full-text search indexes the field (null: the type's default, on for string and text). */
  searchable: z.boolean().nullable().optional(),
};

/** The JSON kind each field type's values have: what an `erasedValue` must be (json takes any). */
const VALUE_KIND = new Map<FieldType, 'string' | 'number' | 'boolean'>([
  ['string', 'string'],
  ['text', 'string'],
  ['hash', 'string'],
  ['csv', 'string'],
  ['uuid', 'string'],
  ['date', 'string'],
  ['datetime', 'string'],
  ['timestamp', 'string'],
  ['time', 'string'],
  ['enum', 'string'],
  ['integer', 'number'],
  ['bigInteger', 'number'],
  ['decimal', 'number'],
  ['boolean', 'boolean'],
]);

/** The rules between a field's attributes, for every body that defines a field. */
export function checkFieldAttributes(b: z.infer<z.ZodObject<typeof fieldShape>>, ctx: z.RefinementCtx): void {
  if (b.type === 'enum' && !b.choices?.length)
    ctx.addIssue({ code: 'custom', path: ['choices'], message: 'an enum field needs choices' });
  if (b.type !== 'enum' && b.choices)
    ctx.addIssue({ code: 'custom', path: ['choices'], message: 'only enum fields have choices' });
  if (b.encrypted && !['string', 'text', 'json'].includes(b.type)) {
    ctx.addIssue({
      code: 'custom',
      path: ['encrypted'],
      message: 'only string, text and json fields can be encrypted',
    });
  }
  if (b.encrypted && b.unique)
    ctx.addIssue({ code: 'custom', path: ['unique'], message: 'an encrypted field cannot be unique' });
  if (b.personal) {
    // Sealed per subject: no index can see the values, and a default would be written unsealed.
    if (b.encrypted)
      ctx.addIssue({ code: 'custom', path: ['encrypted'], message: 'a personal field is sealed already' });
    if (b.unique) ctx.addIssue({ code: 'custom', path: ['unique'], message: 'a personal field cannot be unique' });
    if (b.default !== undefined && b.default !== null)
      ctx.addIssue({ code: 'custom', path: ['default'], message: 'a personal field has no default' });
    if (b.type === 'geometry')
      ctx.addIssue({ code: 'custom', path: ['type'], message: 'a geometry field cannot be personal' });
  }
  if (b.erasedValue !== undefined && b.erasedValue !== null) {
    const kind = VALUE_KIND.get(b.type);
    if (!b.personal)
      ctx.addIssue({ code: 'custom', path: ['erasedValue'], message: 'only a personal field has an erasedValue' });
    else if (kind && typeof b.erasedValue !== kind)
      ctx.addIssue({
        code: 'custom',
        path: ['erasedValue'],
        message: `the erasedValue of a ${b.type} field is a ${kind}`,
      });
  }
  const refusal = b.searchable === true ? searchableRefusal({ ...b, encrypted: b.encrypted ?? false }) : null;
  if (refusal) ctx.addIssue({ code: 'custom', path: ['searchable'], message: refusal });
  if (b.type === 'enum' && b.default !== undefined && b.default !== null && !b.choices?.includes(String(b.default))) {
    ctx.addIssue({ code: 'custom', path: ['default'], message: 'the default must be one of the choices' });
  }
}

/** A relation with its many and one sides spelled out. */
export const RelationRecord = z
  .object({
    id: z.string(),
    kind: z.enum(RELATION_KINDS),
    collection: z.string(),
    field: z.string(),
    target: z.string().nullable(),
    junctionCollection: z.string().nullable(),
    targetField: z.string().nullable(),
    junctionField: z.string().nullable(),
    onDelete: z.enum(ON_DELETE),
    manyCollection: z.string().nullable(),
    manyField: z.string().nullable(),
    oneCollection: z.string().nullable(),
    oneField: z.string().nullable(),
  })
  .meta({ id: 'Relation' });
