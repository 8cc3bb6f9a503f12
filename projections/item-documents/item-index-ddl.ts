import { sql, type Transaction } from 'kysely';
import type { Db, DB } from '../../src/kernel/db/database.ts';
import type { FieldType } from '../../src/contracts/schema/schema.types.ts';
import { NUMERIC_TYPES, TIME_TYPES } from '../schema/index.ts';

/**
 * Per-field indexes are made while a schema event is appended, by the serving role, which owns no table and so may
 * not create or drop an index. This function, owned by the tables' owner and running with its rights, does exactly
 * that and nothing else: a fixed vocabulary of expressions over one field of one site's collection, on the item
 * table or its rebuild twin, under an index name of the item pattern. It runs inside the append transaction, so an
 * index and its event commit together (a unique index refuses a duplicate in that same transaction).
 */
export async function createItemIndexFunction(db: Db): Promise<void> {
  const schema = (await sql<{ s: string }>`select current_schema() as s`.execute(db)).rows[0]!.s;
  await sql`
    create or replace function svc_item_index(op text, tbl text, idx text, site text, coll text, field text, kind text)
    returns void language plpgsql security definer
    set search_path = ${sql.id(schema)}, pg_catalog, pg_temp
    as $fn$
    declare
      expr text;
      val text := format('(data ->> %L)', field);
    begin
      -- The owner itself (rebuilds) may index any site; the serving role only the site of its transaction.
      if session_user <> current_user and site is distinct from current_setting('svc.site_id', true)
         and current_setting('svc.site_id', true) is distinct from '_system' then
        raise exception 'not the site of this transaction: %', site;
      end if;
      if tbl not in ('item_documents', 'item_documents__next') then raise exception 'not an item table: %', tbl; end if;
      if idx !~ ('^' || tbl || '_[xu]_[0-9a-f]{16}$') then raise exception 'not an item index name: %', idx; end if;
      if op = 'drop' then execute format('drop index if exists %I', idx); return; end if;
      expr := case kind
        when 'numeric' then format('(%s)::numeric', val)
        when 'boolean' then format('(%s)::boolean', val)
        when 'time' then format('svc_ts(%s)', val)
        when 'json' then format('(data -> %L)', field)
        when 'text' then val
        when 'md5' then format('md5((data -> %L)::text)', field)
        else null end;
      if expr is null or op not in ('index', 'unique') then raise exception 'not an item index: % %', op, kind; end if;
      execute format('create %s index if not exists %I on %I ((%s)) where site_id = %L and collection = %L and deleted_at is null',
                     case when op = 'unique' then 'unique' else '' end, idx, tbl, expr, site, coll);
    end
    $fn$`.execute(db);
}

/** The expression a field's b-tree index is built on: the one the query compiler filters and sorts by. */
export function valueKind(type: FieldType): string {
  if (NUMERIC_TYPES.includes(type)) return 'numeric';
  if (type === 'boolean') return 'boolean';
  if (TIME_TYPES.includes(type)) return 'time';
  if (type === 'json' || type === 'geometry') return 'json';
  return 'text';
}

/** Long or structured values are made unique by their hash (a b-tree entry has a size limit). */
export const uniqueKind = (type: FieldType): string =>
  ['text', 'json', 'csv', 'geometry'].includes(type) ? 'md5' : 'json';

/** Creates (`index`, `unique`) or drops an item index through the owner's function. */
export async function itemIndexDdl(
  trx: Transaction<DB>,
  op: 'index' | 'unique' | 'drop',
  at: { table: string; name: string; site: string; collection: string; field: string; kind?: string },
): Promise<void> {
  await sql`select svc_item_index(${op}, ${at.table}, ${at.name}, ${at.site}, ${at.collection}, ${at.field}, ${at.kind ?? null})`.execute(
    trx,
  );
}
