import type { AppDeps } from '../../deps.ts';
import { readAsSite } from '../../kernel/tenancy/site.ts';
import type { CollectionRecord, RelationRecord } from '../../../projections/schema/index.ts';
import { findItem } from '../../../projections/item-documents/index.ts';
import { type SiteSchema } from '../../../projections/schema/index.ts';
import type { FieldDef } from '../../contracts/schema/schema.types.ts';
import { CollectionNotFound } from './item.errors.ts';

/** What the item commands, checks and answers need to know about the collection they serve. */
export interface CollectionSchema {
  collection: CollectionRecord;
  /** The collection's fields in their order. */
  fields: FieldDef[];
  /** The whole site's schema: a query may follow relations into other collections. */
  schema: SiteSchema;
  /** Every relation of the site (a query may follow them into other collections). */
  relations: RelationRecord[];
}

/** A collection's fields in their order (none for a collection the schema does not have). */
export const fieldsOf = (schema: SiteSchema, collection: string): FieldDef[] => [
  ...(schema.fields.get(collection)?.values() ?? []),
];

/**
 * The collection within its site's schema, read once per request: the checks, the command and the answer then all
 * see the same schema version. 404 when the site has no such collection.
 */
export async function collectionSchema(
  deps: Pick<AppDeps, 'schemas'>,
  siteId: string,
  collection: string,
): Promise<CollectionSchema> {
  const schema = await deps.schemas.read(siteId);
  const c = schema.collections.get(collection);
  if (!c) throw new CollectionNotFound({ collection });
  return { collection: c, fields: fieldsOf(schema, collection), schema, relations: schema.relations };
}

/** An item as the read model has it now, or null. */
export const readItem = (deps: Pick<AppDeps, 'db'>, siteId: string, collection: string, id: string) =>
  readAsSite(deps.db, siteId, (trx) => findItem(trx, siteId, collection, id));
