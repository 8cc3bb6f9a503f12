import { sql } from 'kysely';
import type { Db } from '../../src/kernel/db/database.ts';

/**
 * Encrypted item values as envelopes (`<keyId>:…`), seen by the key that sealed them: what a key rotation must
 * re-wrap. `fields` maps each collection to its encrypted fields; run under the site's setting.
 */
export type EncryptedFields = Map<string, string[]>;

const underKeys = (fields: string[], keys: string[]) =>
  sql.join(
    fields.map((f) => sql`split_part(data ->> ${sql.lit(f)}, ':', 1) = any(${keys}::text[])`),
    sql` or `,
  );

const outsideKeys = (fields: string[], keys: string[]) =>
  sql.join(
    fields.map(
      (f) =>
        sql`(data ->> ${sql.lit(f)} ~ '^[a-z0-9]+:' and not split_part(data ->> ${sql.lit(f)}, ':', 1) = any(${keys}::text[]))`,
    ),
    sql` or `,
  );

async function countWhere(db: Db, siteId: string, fields: EncryptedFields, where: typeof underKeys, keys: string[]) {
  let n = 0;
  for (const [collection, names] of fields) {
    const r = await sql<{ n: number }>`select count(*)::int as n from item_documents
      where site_id = ${siteId} and collection = ${collection} and (${where(names, keys)})`.execute(db);
    n += r.rows[0]!.n;
  }
  return n;
}

/** Items with a value sealed under one of `keys`. */
export const countSealedUnder = (db: Db, siteId: string, fields: EncryptedFields, keys: string[]) =>
  keys.length ? countWhere(db, siteId, fields, underKeys, keys) : Promise.resolve(0);

/** Items with a value sealed under a key that is none of `keys` (one no longer configured). */
export const countSealedOutside = (db: Db, siteId: string, fields: EncryptedFields, keys: string[]) =>
  countWhere(db, siteId, fields, outsideKeys, keys);

/** Up to `limit` items of one collection with a value sealed under one of `keys`, in id order. */
export async function itemsSealedUnder(
  db: Db,
  siteId: string,
  collection: string,
  fields: string[],
  keys: string[],
  limit: number,
): Promise<{ id: string; data: Record<string, unknown> }[]> {
  const r = await sql<{ id: string; data: Record<string, unknown> }>`select id, data from item_documents
    where site_id = ${siteId} and collection = ${collection} and (${underKeys(fields, keys)})
    order by id limit ${limit}`.execute(db);
  return r.rows;
}
