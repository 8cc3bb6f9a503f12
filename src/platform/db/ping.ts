import { sql, type Kysely } from 'kysely';
import type { DB } from '../../kernel/db/database.ts';

/** One round trip to the database: the health checks' probe. */
export async function ping(db: Kysely<DB>): Promise<void> {
  await sql`select 1`.execute(db);
}
