import { sql } from 'kysely';
import { defineProjector } from '../../src/kernel/es/projector.ts';
import { SCHEMA_EVENT_TYPES, type SchemaEvent } from '../../src/features/schema/schema.events.ts';

/** Collections, fields and relations of every site, as JSON definitions. */
export const schemaProjector = defineProjector({
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
  apply: async (trx, stored, t) => {
    const e = stored as unknown as SchemaEvent;
    const site = stored.siteId;
    const c = sql.table(t('schema_collections'));
    const f = sql.table(t('schema_fields'));
    const r = sql.table(t('schema_relations'));
    const q = (() => {
      switch (e.type) {
        case 'CollectionCreated':
          return sql`insert into ${c} (site_id, name, definition, created_at, updated_at)
                     values (${site}, ${e.data.collection.name}, ${JSON.stringify(e.data.collection)}, ${e.data.at}, ${e.data.at})
                     on conflict do nothing`;
        case 'CollectionUpdated':
          return sql`update ${c} set definition = definition || ${JSON.stringify(e.data.changes)}::jsonb, updated_at = ${e.data.at}
                     where site_id = ${site} and name = ${e.data.name}`;
        case 'CollectionDeleted':
          return sql`update ${c} set deleted_at = ${e.data.at}, updated_at = ${e.data.at} where site_id = ${site} and name = ${e.data.name}`;
        case 'FieldCreated':
          return sql`insert into ${f} (site_id, collection, field, definition)
                     values (${site}, ${e.data.collection}, ${e.data.field.field}, ${JSON.stringify(e.data.field)}) on conflict do nothing`;
        case 'FieldUpdated':
          return sql`update ${f} set definition = definition || ${JSON.stringify(e.data.changes)}::jsonb
                     where site_id = ${site} and collection = ${e.data.collection} and field = ${e.data.field}`;
        case 'FieldDeleted':
          return sql`delete from ${f} where site_id = ${site} and collection = ${e.data.collection} and field = ${e.data.field}`;
        case 'RelationCreated':
          return sql`insert into ${r} (site_id, id, definition) values (${site}, ${e.data.relation.id}, ${JSON.stringify(e.data.relation)})
                     on conflict do nothing`;
        case 'RelationUpdated':
          return sql`update ${r} set definition = definition || ${JSON.stringify(e.data.changes)}::jsonb where site_id = ${site} and id = ${e.data.id}`;
        case 'RelationDeleted':
          return sql`delete from ${r} where site_id = ${site} and id = ${e.data.id}`;
        default:
          return null;
      }
    })();
    if (q) await q.execute(trx);
  },
});
