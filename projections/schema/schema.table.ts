import type { Int8, Json, NullableTimestamp, Timestamp } from '../../src/kernel/db/database.ts';
import type { CollectionDef, FieldDef, RelationDef } from '../../src/contracts/schema/schema.types.ts';
import type { Generated } from 'kysely';

/** Collections of each site with their definitions (DDL in schema.projector.ts). */
export interface SchemaCollectionsTable {
  site_id: string;
  name: string;
  definition: Json<CollectionDef>;
  deleted_at: NullableTimestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface SchemaFieldsTable {
  site_id: string;
  collection: string;
  field: string;
  definition: Json<FieldDef>;
  /** Creation order (bigserial): fields list in the order they were added. */
  position: Generated<Int8>;
}

export interface SchemaRelationsTable {
  site_id: string;
  id: string;
  definition: Json<RelationDef>;
}

declare module '../../src/kernel/db/database.ts' {
  interface DB {
    schema_collections: SchemaCollectionsTable;
    schema_fields: SchemaFieldsTable;
    schema_relations: SchemaRelationsTable;
  }
}
