import { sql, type Selectable } from 'kysely';
import type { Db, DB } from '../../src/kernel/db/database.ts';
import {
  isVersioned,
  type CollectionDef,
  type FieldDef,
  type RelationDef,
} from '../../src/contracts/schema/schema.types.ts';

export interface CollectionRecord extends CollectionDef {
  /** Always shown: a definition made before the attribute existed has it on. */
  versioning: boolean;
  createdAt: string;
  updatedAt: string;
  deletedAt: string | null;
}

export interface RelationRecord extends RelationDef {
  manyCollection: string | null;
  manyField: string | null;
  oneCollection: string | null;
  oneField: string | null;
}

type CollectionRow = Pick<
  Selectable<DB['schema_collections']>,
  'definition' | 'created_at' | 'updated_at' | 'deleted_at'
>;
const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);
const toCollection = (r: CollectionRow): CollectionRecord => ({
  ...r.definition,
  versioning: isVersioned(r.definition),
  createdAt: iso(r.created_at)!,
  updatedAt: iso(r.updated_at)!,
  deletedAt: iso(r.deleted_at),
});

export async function listCollections(db: Db, siteId: string, withDeleted = false): Promise<CollectionRecord[]> {
  const r = await sql<CollectionRow>`
    select definition, created_at, updated_at, deleted_at from schema_collections
    where site_id = ${siteId} ${withDeleted ? sql`` : sql`and deleted_at is null`} order by name`.execute(db);
  return r.rows.map(toCollection);
}

export async function findCollection(db: Db, siteId: string, name: string): Promise<CollectionRecord | null> {
  const r = await sql<CollectionRow>`
    select definition, created_at, updated_at, deleted_at from schema_collections
    where site_id = ${siteId} and name = ${name} and deleted_at is null`.execute(db);
  return r.rows[0] ? toCollection(r.rows[0]) : null;
}

/** Fields in their `sort` order, then in the order they were added. */
export async function listFields(
  db: Db,
  siteId: string,
  collection: string,
): Promise<(FieldDef & { collection: string; personal: boolean })[]> {
  const r = await sql<Pick<Selectable<DB['schema_fields']>, 'definition'>>`
    select definition from schema_fields where site_id = ${siteId} and collection = ${collection}
    order by (definition->>'sort')::int nulls last, position`.execute(db);
  return r.rows.map((x) => fieldRecord(collection, x.definition));
}

export async function findField(db: Db, siteId: string, collection: string, field: string) {
  const r = await sql<Pick<Selectable<DB['schema_fields']>, 'definition'>>`
    select definition from schema_fields where site_id = ${siteId} and collection = ${collection} and field = ${field}`.execute(
    db,
  );
  return r.rows[0] ? fieldRecord(collection, r.rows[0].definition) : null;
}

/** A field as the API shows it: `personal` is stored only where it is true. */
const fieldRecord = (collection: string, def: FieldDef) => ({ collection, ...def, personal: def.personal === true });

/** The spec's relation record: many side holds the reference, one side is referenced. */
export function toRelationRecord(stored: RelationDef): RelationRecord {
  const d = { ...stored, targetField: stored.targetField ?? null, junctionField: stored.junctionField ?? null };
  const m2o = d.kind === 'm2o';
  return {
    ...d,
    manyCollection: m2o ? d.collection : (d.junctionCollection ?? d.target),
    manyField: m2o ? d.field : null,
    oneCollection: m2o ? d.target : d.collection,
    oneField: m2o ? null : d.field,
  };
}

export async function listRelations(db: Db, siteId: string): Promise<RelationRecord[]> {
  const r = await sql<
    Pick<Selectable<DB['schema_relations']>, 'definition'>
  >`select definition from schema_relations where site_id = ${siteId} order by id`.execute(db);
  return r.rows.map((x) => toRelationRecord(x.definition));
}

export async function findRelation(db: Db, siteId: string, id: string): Promise<RelationRecord | null> {
  const r = await sql<
    Pick<Selectable<DB['schema_relations']>, 'definition'>
  >`select definition from schema_relations where site_id = ${siteId} and id = ${id}`.execute(db);
  return r.rows[0] ? toRelationRecord(r.rows[0].definition) : null;
}
