import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { createDatabase, type Database } from '../../src/kernel/db/create-db.ts';
import { migrate } from '../../src/kernel/db/migrate.ts';

export const PGLITE_TEMPLATE = path.join(os.tmpdir(), 'svc-test-pglite-0.5.14.tar');

/**
 * A migrated database of its own for one test file: a fresh schema on TEST_DATABASE_URL,
 * or else an in-memory PGlite loaded from the template dump. `drop()` removes it.
 */
export async function openTestDatabase(): Promise<Database & { schema: string | null; drop(): Promise<void> }> {
  const url = process.env.TEST_DATABASE_URL;
  if (url) {
    const schema = `t_${randomBytes(6).toString('hex')}`;
    const database = await createDatabase({ kind: 'postgres', url, schema, poolSize: 12 });
    await migrate(database.db);
    return {
      ...database,
      schema,
      drop: async () => {
        await database.close();
        const c = new pg.Client({ connectionString: url });
        await c.connect();
        await c.query(`drop schema if exists "${schema}" cascade`);
        await c.end();
      },
    };
  }
  const loadDataDir = fs.existsSync(PGLITE_TEMPLATE) ? new Blob([fs.readFileSync(PGLITE_TEMPLATE)]) : undefined;
  const database = await createDatabase({ kind: 'pglite', dataDir: null, loadDataDir });
  await migrate(database.db);
  return { ...database, schema: null, drop: () => database.close() };
}
