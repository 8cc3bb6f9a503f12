import { own } from '../../src/kernel/safe/keys.ts';
import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../../src/kernel/db/database.ts';
import type { FieldDef, FieldType } from '../../src/contracts/schema/schema.types.ts';
import { SYSTEM_COLLECTIONS } from '../../src/contracts/schema/system-collections.types.ts';
import { listCollections, listRelations, type CollectionRecord, type RelationRecord } from './schema.queries.ts';

/** What a query needs to know about a site's schema: every collection's fields and every relation. */
export interface SiteSchema {
  collections: Map<string, CollectionRecord>;
  fields: Map<string, Map<string, FieldDef>>;
  relations: RelationRecord[];
}

const SINCE_ALWAYS = '1970-01-01T00:00:00.000Z';

/** Values every item carries in its document besides its collection's fields. */
const SYSTEM_VALUES: Record<string, FieldType> = { status: 'string', sort: 'integer' };

export async function loadSiteSchema(db: Db, siteId: string): Promise<SiteSchema> {
  // One after the other (they may share a transaction's connection). Under `readAsSite` each is a snapshot of its
  // own: a schema change between them gives a mixed schema, cached under the version read before (the next
  // version moves past it).
  const collections = await listCollections(db, siteId);
  const rows = await sql<{ collection: string; definition: FieldDef }>`
      select f.collection, f.definition from schema_fields f
      join schema_collections c on c.site_id = f.site_id and c.name = f.collection and c.deleted_at is null
      where f.site_id = ${siteId} order by (f.definition->>'sort')::int nulls last, f.position`.execute(db);
  const relations = await listRelations(db, siteId);
  const fields = new Map<string, Map<string, FieldDef>>();
  const all = new Map(collections.map((c) => [c.name, c]));
  // The system collections every site has (files): fixed definitions, not rows of the schema tables.
  for (const [name, c] of SYSTEM_COLLECTIONS) {
    const versioning = c.collection.versioning !== false;
    all.set(name, { ...c.collection, versioning, createdAt: SINCE_ALWAYS, updatedAt: SINCE_ALWAYS, deletedAt: null });
    fields.set(name, new Map(c.fields.map((f) => [f.field, f])));
  }
  for (const r of rows.rows) {
    let m = fields.get(r.collection);
    if (!m) fields.set(r.collection, (m = new Map()));
    m.set(r.definition.field, r.definition);
  }
  return { collections: all, fields, relations };
}

/** The type of a value field (user field or status/sort), or undefined when the collection has no such field. */
export function valueType(schema: SiteSchema, collection: string, field: string): FieldType | undefined {
  return schema.fields.get(collection)?.get(field)?.type ?? own(SYSTEM_VALUES, field);
}

export function fieldDef(schema: SiteSchema, collection: string, field: string): FieldDef | undefined {
  return schema.fields.get(collection)?.get(field);
}

/** The relation carried by `collection.field`, if any. */
export function relationOn(schema: SiteSchema, collection: string, field: string): RelationRecord | undefined {
  return relationIndex(schema).get(collection)?.get(field);
}

const relationIndexes = new WeakMap<RelationRecord[], Map<string, Map<string, RelationRecord>>>();

/** The schema's relations by collection and field (asked for per key of every record of an answer). */
export function relationIndex(schema: SiteSchema): Map<string, Map<string, RelationRecord>> {
  let index = relationIndexes.get(schema.relations);
  if (!index) {
    index = new Map();
    for (const r of schema.relations) {
      let m = index.get(r.collection);
      if (!m) index.set(r.collection, (m = new Map()));
      // The first one wins, as a search through the list would find it.
      if (!m.has(r.field)) m.set(r.field, r);
    }
    relationIndexes.set(schema.relations, index);
  }
  return index;
}

export const NUMERIC_TYPES: FieldType[] = ['integer', 'bigInteger', 'decimal'];
export const TIME_TYPES: FieldType[] = ['datetime', 'timestamp'];

/**
 * The SQL expression of a top-level value, typed for comparison and sorting. Field names are inlined as literals
 * (they match ^[a-z][a-z0-9_]*$), so that the expression indexes of the item-documents projector match it.
 */
export function valueExpr(type: FieldType, field: string, alias?: string): RawBuilder<unknown> {
  const data = alias ? sql.ref(`${alias}.data`) : sql.ref('data');
  const text = sql`(${data} ->> ${sql.lit(field)})`;
  if (NUMERIC_TYPES.includes(type)) return sql`(${text})::numeric`;
  if (type === 'boolean') return sql`(${text})::boolean`;
  if (TIME_TYPES.includes(type)) return sql`svc_ts(${text})`;
  if (type === 'json' || type === 'geometry') return sql`(${data} -> ${sql.lit(field)})`;
  return text;
}

/** Types whose values are short and ordered: they get a b-tree expression index when the field is created. */
export const INDEXED_TYPES: FieldType[] = [
  'string',
  'integer',
  'bigInteger',
  'decimal',
  'boolean',
  'uuid',
  'date',
  'datetime',
  'time',
  'timestamp',
  'enum',
];
