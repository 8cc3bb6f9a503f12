/** Value types a field may have (spec "Field"). */
export const FIELD_TYPES = [
  'string',
  'text',
  'hash',
  'csv',
  'integer',
  'bigInteger',
  'decimal',
  'boolean',
  'json',
  'uuid',
  'date',
  'datetime',
  'time',
  'timestamp',
  'geometry',
  'enum',
] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

export const PRIMARY_KEY_TYPES = ['nanoid', 'uuid', 'integer', 'bigInteger'] as const;
export type PrimaryKeyType = (typeof PRIMARY_KEY_TYPES)[number];

export const RELATION_KINDS = ['m2o', 'o2m', 'm2m', 'm2a'] as const;
export const ON_DELETE = ['restrict', 'set null', 'cascade'] as const;

/** Names of collections and fields. */
export const NAME_PATTERN = /^[a-z][a-z0-9_]{0,62}$/;

/** System fields on every collection; user fields may not take these names. */
export const SYSTEM_FIELDS = [
  'id',
  'status',
  'sort',
  'created_at',
  'created_by',
  'updated_at',
  'updated_by',
  'deleted_at',
  'deleted_by',
] as const;

/**
 * The editorial gate of a collection (DESIGN §5): which values of `field` may follow which. `transitions` maps a
 * value to the values it may change to; `initial`, when set, lists the values a new item may start with.
 */
export interface Workflow {
  field: string;
  transitions: Record<string, string[]>;
  initial?: string[];
}

export interface CollectionDef {
  name: string;
  displayName: string | null;
  icon: string | null;
  note: string | null;
  singleton: boolean;
  status_field: string | null;
  sort_field: string | null;
  primaryKeyType: PrimaryKeyType;
  workflow?: Workflow | null;
  /** Whose personal data the `personal` fields hold; absent on collections without any. */
  subject?: SubjectDef | null;
  /**
   * Whether items have named versions (drafts): off, the `/versions` routes and `X-Svc-Draft` are refused. Not the
   * history: every change is an event whatever it says. Absent (collections made before it existed) is on.
   */
  versioning?: boolean;
}

/** Whether a collection's items have named versions (absent: on). */
export const isVersioned = (def: Pick<CollectionDef, 'versioning'>): boolean => def.versioning !== false;

/**
 * The data subject of a collection's items (issue "personal fields in content"): the item itself (a `customers`
 * record is a person) or the user a field names (`user_created`, or a string field holding a user id). Values of
 * `personal` fields are sealed with that subject's key, so erasing the subject shreds them.
 */
export type SubjectDef = { from: 'item' } | { from: 'field'; field: string };

/** The id of the subject key of an item that is its own subject. */
export const itemSubjectId = (site: string, collection: string, id: string) => `item:${site}:${collection}:${id}`;

export interface FieldDef {
  field: string;
  type: FieldType;
  choices: string[] | null;
  interface: string | null;
  display: string | null;
  options: Record<string, unknown>;
  required: boolean;
  nullable: boolean;
  readonly: boolean;
  encrypted: boolean;
  unique: boolean;
  sort: number | null;
  default: unknown;
  /** Personal data of the collection's subject: sealed with the subject's key, `erasedValue` once it is erased. */
  personal?: boolean;
  /** What a personal value reads as after its subject's erasure (null when not given). */
  erasedValue?: unknown;
  /**
   * Whether full-text search indexes the field's values: null or absent takes the type's default (on for string
   * and text). Only string, text, csv and enum fields may be searchable, never encrypted or personal ones.
   */
  searchable?: boolean | null;
}

export interface RelationDef {
  id: string;
  kind: (typeof RELATION_KINDS)[number];
  /** The collection that carries `field`. */
  collection: string;
  field: string;
  /** Target collection; null for m2a (any collection). */
  target: string | null;
  junctionCollection: string | null;
  /**
   * o2m: the m2o field of `target` that holds this item's id. m2m: the junction's field that holds the target's id
   * (default `<target>_id`).
   */
  targetField: string | null;
  /** m2m: the junction's field that holds this item's id (default `<collection>_id`). */
  junctionField: string | null;
  onDelete: (typeof ON_DELETE)[number];
}

export type CollectionChanges = Partial<Omit<CollectionDef, 'name' | 'primaryKeyType' | 'singleton'>>;
export type FieldChanges = Partial<Omit<FieldDef, 'field' | 'type' | 'personal'>>;
export type RelationChanges = Partial<Pick<RelationDef, 'onDelete'>>;

/** The types whose values full-text search may index. */
export const SEARCHABLE_TYPES: readonly FieldType[] = ['string', 'text', 'csv', 'enum'];

/** Why a field may not be searchable (null when it may): its type, its encryption or its being personal. */
export function searchableRefusal(f: Pick<FieldDef, 'type' | 'encrypted' | 'personal'>): string | null {
  if (!SEARCHABLE_TYPES.includes(f.type)) return `a ${f.type} field cannot be searchable`;
  if (f.encrypted) return 'an encrypted field cannot be searchable';
  if (f.personal) return 'a personal field cannot be searchable';
  return null;
}

/** Whether search indexes the field: the attribute, else on for string and text; never where it may not be. */
export function isSearchable(f: Pick<FieldDef, 'type' | 'encrypted' | 'personal' | 'searchable'>): boolean {
  if (searchableRefusal(f) !== null) return false;
  return f.searchable ?? (f.type === 'string' || f.type === 'text');
}

/** A field definition with every attribute the input leaves out at its default. */
export function fieldWithDefaults(input: Pick<FieldDef, 'field' | 'type'> & Partial<FieldDef>): FieldDef {
  return {
    choices: null,
    interface: null,
    display: null,
    options: {},
    required: false,
    nullable: true,
    readonly: false,
    encrypted: false,
    unique: false,
    sort: null,
    ...input,
    default: input.default ?? null,
  };
}

/**
 * The type changes whose stored values need no rewriting: each value of `from` is already a valid value of `to`, as
 * the item engine checks and indexes them (integer → decimal, string → text, a date → string, anything → json).
 * Other changes would have to rewrite or could lose values; they are refused (add a field and copy instead).
 */
const LOSSLESS: ReadonlyMap<FieldType, readonly FieldType[]> = new Map<FieldType, FieldType[]>([
  ['integer', ['bigInteger', 'decimal', 'json']],
  ['bigInteger', ['decimal', 'json']],
  ['decimal', ['json']],
  ['string', ['text', 'json']],
  ['hash', ['text', 'json']],
  ['csv', ['text', 'json']],
  ['uuid', ['string', 'text', 'json']],
  ['date', ['string', 'text', 'json']],
  ['time', ['string', 'text', 'json']],
  ['datetime', ['timestamp', 'string', 'text', 'json']],
  ['timestamp', ['datetime', 'string', 'text', 'json']],
  ['enum', ['string', 'text', 'json']],
  ['boolean', ['json']],
  ['geometry', ['json']],
]);
export const convertible = (from: FieldType, to: FieldType): boolean =>
  from === to || (LOSSLESS.get(from) ?? []).includes(to);

/** The value type a relation's carrying field must have: an id for m2o, a list (JSON) for the others. */
export const CARRIER_TYPES: Readonly<Record<(typeof RELATION_KINDS)[number], readonly FieldType[]>> = {
  m2o: ['string', 'uuid', 'integer', 'bigInteger'],
  o2m: ['json'],
  m2m: ['json'],
  m2a: ['json'],
};
