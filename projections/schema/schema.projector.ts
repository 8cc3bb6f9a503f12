import { sql, type Transaction } from 'kysely';
import { jsonbMerge, type DB } from '../../src/kernel/db/database.ts';
import { defineProjector, type StoredEventOf } from '../../src/kernel/es/projector.ts';
import { SCHEMA_EVENT_TYPES, type SchemaEvent } from '../../src/contracts/schema/schema.events.ts';

/** Collections, fields and relations of every site, as JSON definitions. */
export const schemaProjector = defineProjector<SchemaEvent>({
  name: 'schema',
  version: 1,
  mode: 'inline',
  tables: ['schema_collections', 'schema_fields', 'schema_relations'],
  handles: SCHEMA_EVENT_TYPES,
  createTables: async (db, t) => {
    await sql`
      create table ${sql.table(t('schema_collections'))} (
        site_id text not null,
        name text not null,
        definition jsonb not null,
        deleted_at timestamptz,
        created_at timestamptz not null,
        updated_at timestamptz not null,
        primary key (site_id, name)
      )`.execute(db);
    await sql`
      create table ${sql.table(t('schema_fields'))} (
        site_id text not null,
        collection text not null,
        field text not null,
        definition jsonb not null,
        position bigserial,
        primary key (site_id, collection, field)
      )`.execute(db);
    await sql`
      create table ${sql.table(t('schema_relations'))} (
        site_id text not null,
        id text not null,
        definition jsonb not null,
        primary key (site_id, id)
      )`.execute(db);
  },
  apply: async (trx, e) => {
    switch (e.type) {
      case 'CollectionCreated':
      case 'CollectionUpdated':
      case 'CollectionDeleted':
        return applyCollection(trx, e);
      case 'FieldCreated':
      case 'FieldUpdated':
      case 'FieldTypeChanged':
      case 'FieldDeleted':
        return applyField(trx, e);
      case 'RelationCreated':
      case 'RelationUpdated':
      case 'RelationDeleted':
        return applyRelation(trx, e);
      default:
        return;
    }
  },
});

type Of<P extends string> = StoredEventOf<Extract<SchemaEvent, { type: `${P}${string}` }>>;

async function applyCollection(trx: Transaction<DB>, e: Of<'Collection'>): Promise<void> {
  switch (e.type) {
    case 'CollectionCreated':
      await trx
        .insertInto('schema_collections')
        .values({
          site_id: e.siteId,
          name: e.data.collection.name,
          definition: JSON.stringify(e.data.collection),
          created_at: e.data.at,
          updated_at: e.data.at,
        })
        .onConflict((oc) => oc.doNothing())
        .execute();
      return;
    case 'CollectionUpdated':
      await trx
        .updateTable('schema_collections')
        .set((eb) => ({ definition: jsonbMerge(eb.ref('definition'), e.data.changes), updated_at: e.data.at }))
        .where('site_id', '=', e.siteId)
        .where('name', '=', e.data.name)
        .execute();
      return;
    case 'CollectionDeleted':
      await trx
        .updateTable('schema_collections')
        .set({ deleted_at: e.data.at, updated_at: e.data.at })
        .where('site_id', '=', e.siteId)
        .where('name', '=', e.data.name)
        .execute();
      return;
  }
}

async function applyField(trx: Transaction<DB>, e: Of<'Field'>): Promise<void> {
  switch (e.type) {
    case 'FieldCreated':
      await trx
        .insertInto('schema_fields')
        .values({
          site_id: e.siteId,
          collection: e.data.collection,
          field: e.data.field.field,
          definition: JSON.stringify(e.data.field),
        })
        .onConflict((oc) => oc.doNothing())
        .execute();
      return;
    case 'FieldUpdated':
      await trx
        .updateTable('schema_fields')
        .set((eb) => ({ definition: jsonbMerge(eb.ref('definition'), e.data.changes) }))
        .where('site_id', '=', e.siteId)
        .where('collection', '=', e.data.collection)
        .where('field', '=', e.data.field)
        .execute();
      return;
    case 'FieldTypeChanged':
      await trx
        .updateTable('schema_fields')
        .set((eb) => ({
          definition: jsonbMerge(eb.ref('definition'), { type: e.data.to, choices: e.data.choices }),
        }))
        .where('site_id', '=', e.siteId)
        .where('collection', '=', e.data.collection)
        .where('field', '=', e.data.field)
        .execute();
      return;
    case 'FieldDeleted':
      await trx
        .deleteFrom('schema_fields')
        .where('site_id', '=', e.siteId)
        .where('collection', '=', e.data.collection)
        .where('field', '=', e.data.field)
        .execute();
      return;
  }
}

async function applyRelation(trx: Transaction<DB>, e: Of<'Relation'>): Promise<void> {
  switch (e.type) {
    case 'RelationCreated':
      await trx
        .insertInto('schema_relations')
        .values({ site_id: e.siteId, id: e.data.relation.id, definition: JSON.stringify(e.data.relation) })
        .onConflict((oc) => oc.doNothing())
        .execute();
      return;
    case 'RelationUpdated':
      await trx
        .updateTable('schema_relations')
        .set((eb) => ({ definition: jsonbMerge(eb.ref('definition'), e.data.changes) }))
        .where('site_id', '=', e.siteId)
        .where('id', '=', e.data.id)
        .execute();
      return;
    case 'RelationDeleted':
      await trx.deleteFrom('schema_relations').where('site_id', '=', e.siteId).where('id', '=', e.data.id).execute();
      return;
  }
}
