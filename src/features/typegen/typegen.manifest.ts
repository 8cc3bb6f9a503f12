import { toRelationRecord, type RelationRecord } from '../../../projections/schema/index.ts';
import {
  FIELD_TYPES,
  PRIMARY_KEY_TYPES,
  RELATION_KINDS,
  type FieldDef,
  type RelationDef,
} from '../../contracts/schema/schema.types.ts';
import type { SchemaSnapshot, SnapshotCollection } from '../../contracts/schema/schema.snapshot.ts';
import { keyTypeName, typeNames } from './typegen.names.ts';

type FieldType = (typeof FIELD_TYPES)[number];
type PrimaryKeyType = (typeof PRIMARY_KEY_TYPES)[number];
type RelationKind = (typeof RELATION_KINDS)[number];

/** The version of the manifest's shape (spec "Versioning" 3). */
export const MANIFEST_VERSION = 2;

/** One field of a collection as type generation sees it (spec "Field": the type-generation attributes). */
export interface ManifestField {
  name: string;
  type: FieldType;
  /** Always present in a record read with `fields=*` (and needed on create). */
  required: boolean;
  /** The API answers (and accepts) null: false for required fields, whatever their definition says. */
  nullable: boolean;
  /** A request may not write it. */
  readonly: boolean;
  /** The service sets it (ids it generates, the audit and soft-delete fields). */
  generated: boolean;
  system: boolean;
  encrypted: boolean;
  primaryKey: boolean;
  /** The key type this field holds: its collection's (primary key) or the related collection's (relations). */
  branded?: string;
  kind?: RelationKind;
  /** The related collection (m2o, o2m, m2m; m2a relates to any). */
  target?: string;
  /** The values of an enum field. */
  choices?: string[];
}

export interface ManifestCollection {
  name: string;
  /** The name of the primary key field (`id`). */
  primaryKey: string;
  /** The same name, kept beside `primaryKey` for clients of the first manifest. */
  primaryKeyField: string;
  primaryKeyType: PrimaryKeyType;
  fields: ManifestField[];
  /** Every relation the collection carries, is the target of, or is the junction of (spec "Relation" records). */
  relations: RelationRecord[];
}

/** The type-generation manifest, version 2 (spec "Type-generation manifest"). */
export interface TypegenManifest {
  version: typeof MANIFEST_VERSION;
  site: string;
  collections: ManifestCollection[];
}

const PRIMARY_KEY = 'id';
const KEY_FIELD_TYPE = new Map<PrimaryKeyType, FieldType>([
  ['nanoid', 'string'],
  ['uuid', 'uuid'],
  ['integer', 'integer'],
  ['bigInteger', 'bigInteger'],
]);

type Flags = Pick<ManifestField, 'required' | 'nullable' | 'readonly' | 'generated'>;
const audit: Flags = { required: true, nullable: false, readonly: true, generated: true };
const softDelete: Flags = { required: false, nullable: true, readonly: true, generated: true };
const editable: Flags = { required: false, nullable: true, readonly: false, generated: false };

/** The system fields after `id`, in SYSTEM_FIELDS order, with their value types and how the service treats them. */
const SYSTEM_AFTER_ID: readonly [string, FieldType, Flags][] = [
  ['status', 'string', editable],
  ['sort', 'integer', editable],
  ['created_at', 'datetime', audit],
  ['created_by', 'string', audit],
  ['updated_at', 'datetime', audit],
  ['updated_by', 'string', audit],
  ['deleted_at', 'datetime', softDelete],
  ['deleted_by', 'string', softDelete],
];

const base = { system: false, encrypted: false, primaryKey: false };

function systemFields(c: SnapshotCollection, brand: string): ManifestField[] {
  const pk = c.def.primaryKeyType;
  const id: ManifestField = {
    name: PRIMARY_KEY,
    type: KEY_FIELD_TYPE.get(pk) ?? 'string',
    required: true,
    nullable: false,
    readonly: true,
    // Integer keys are given by the client on create; the others the service generates when none is given.
    generated: pk === 'nanoid' || pk === 'uuid',
    system: true,
    encrypted: false,
    primaryKey: true,
    branded: brand,
  };
  return [id, ...SYSTEM_AFTER_ID.map(([name, type, flags]) => ({ ...base, name, type, ...flags, system: true }))];
}

function userField(f: FieldDef, relation: RelationDef | undefined, brands: Map<string, string>): ManifestField {
  const out: ManifestField = {
    ...base,
    name: f.field,
    type: f.type,
    required: f.required,
    // A personal value reads as its erased value (null unless declared) once its subject is erased.
    nullable: (f.nullable && !f.required) || (f.personal === true && (f.erasedValue ?? null) === null),
    readonly: f.readonly,
    generated: false,
    encrypted: f.encrypted,
  };
  if (f.type === 'enum' && f.choices) out.choices = [...f.choices];
  if (relation) {
    out.kind = relation.kind;
    // o2m and m2m lists appear only when asked for by name, and are [] when empty: optional, never null.
    if (relation.kind === 'o2m' || relation.kind === 'm2m') {
      out.required = false;
      out.nullable = false;
    }
    if (relation.target) {
      out.target = relation.target;
      const brand = brands.get(relation.target);
      if (brand) out.branded = brand;
    }
  }
  return out;
}

/** Which collections a manifest holds: `include` (all when null) less `exclude`. */
export interface ManifestFilter {
  include: readonly string[] | null;
  exclude: readonly string[];
}

/**
 * The manifest of a schema snapshot: live collections in name order, each with `id`, its fields in the snapshot's
 * order and the other system fields. Key type names are given over every collection of the schema, so a filter
 * never renames them.
 */
export function buildManifest(snapshot: SchemaSnapshot, site: string, filter: ManifestFilter): TypegenManifest {
  const names = typeNames(snapshot.collections.map((c) => c.def.name));
  const brands = new Map([...names].map(([c, n]) => [c, keyTypeName(n)]));
  const include = filter.include ? new Set(filter.include) : null;
  const exclude = new Set(filter.exclude);
  const carried = new Map<string, RelationDef>();
  for (const r of snapshot.relations) carried.set(`${r.collection}\u0000${r.field}`, r);
  const collections = snapshot.collections
    .filter((c) => (!include || include.has(c.def.name)) && !exclude.has(c.def.name))
    .map((c): ManifestCollection => {
      const name = c.def.name;
      const [id, ...system] = systemFields(c, brands.get(name)!);
      const fields = c.fields.map((f) => userField(f, carried.get(`${name}\u0000${f.field}`), brands));
      const relations = snapshot.relations
        .filter((r) => r.collection === name || r.target === name || r.junctionCollection === name)
        .map(toRelationRecord);
      return {
        name,
        primaryKey: PRIMARY_KEY,
        primaryKeyField: PRIMARY_KEY,
        primaryKeyType: c.def.primaryKeyType,
        fields: [id!, ...fields, ...system],
        relations,
      };
    });
  return { version: MANIFEST_VERSION, site, collections };
}
