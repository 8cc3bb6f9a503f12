import { sql } from 'kysely';
import type { Db } from '../../src/kernel/db/database.ts';

/**
 * Where any of the strings can still be read: every text, JSON and byte column of every table of the schema,
 * searched case-insensitively (`table.column` for each column that holds one). For proofs that personal data is
 * nowhere in clear, so a scan that finds nothing must also be shown to find what is there.
 */
export async function tablesHolding(db: Db, needles: string[]): Promise<string[]> {
  const cols = await sql<{ table_name: string; column_name: string }>`
    select c.table_name, c.column_name from information_schema.columns c
    join information_schema.tables x on x.table_schema = c.table_schema and x.table_name = c.table_name
    where c.table_schema = current_schema() and x.table_type = 'BASE TABLE'
      and c.data_type in ('text', 'character varying', 'jsonb', 'json', 'bytea')`.execute(db);
  const lowered = needles.map((n) => `%${n.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
  const found: string[] = [];
  for (const { table_name, column_name } of cols.rows) {
    const r = await sql<{ n: number }>`select count(*)::int as n from ${sql.table(table_name)}
      where lower(convert_from(convert_to(${sql.ref(column_name)}::text, 'UTF8'), 'UTF8')) like any(${lowered}::text[])`.execute(
      db,
    );
    if (r.rows[0]!.n > 0) found.push(`${table_name}.${column_name}`);
  }
  return found;
}
