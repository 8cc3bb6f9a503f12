import { own } from '../../src/kernel/safe/keys.ts';
import { searchText } from '../../src/platform/db/text-search.ts';
import { isSearchable, type FieldDef } from '../../src/contracts/schema/schema.types.ts';
import type { SearchDocument, SearchWeight } from './search.types.ts';

/** As much of a site's schema as a document needs: each collection's fields in their order. */
export interface SearchSchema {
  fields: ReadonlyMap<string, ReadonlyMap<string, FieldDef>>;
}

/**
 * A collection's searchable fields (`isSearchable`: never encrypted or personal) with their weights: the first
 * string field in the collection's order is its title (`A`), the others count less (`B`).
 */
export function searchableFields(schema: SearchSchema, collection: string): { field: string; weight: SearchWeight }[] {
  const defs = [...(schema.fields.get(collection)?.values() ?? [])].filter(isSearchable);
  const title = defs.find((f) => f.type === 'string');
  return defs.map((f) => ({ field: f.field, weight: f === title ? 'A' : 'B' }));
}

/** The indexed text of a value: a string, or the strings of a list (csv) joined; null for anything else. */
export function valueText(v: unknown): string | null {
  const raw =
    typeof v === 'string' ? v : Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string').join(' ') : null;
  if (raw === null) return null;
  const text = searchText(raw);
  return text.trim() ? text : null;
}

/**
 * What every engine indexes of an item (the one builder of search documents): the searchable fields of
 * `record` (an item's values, or the changed ones of an update) that hold text.
 */
export function searchDocument(
  schema: SearchSchema,
  collection: string,
  record: { id: string } & Record<string, unknown>,
): SearchDocument {
  const fields = searchableFields(schema, collection).flatMap(({ field, weight }) => {
    const text = valueText(own(record, field));
    return text === null ? [] : [{ field, text, weight }];
  });
  return { collection, id: record.id, fields };
}
