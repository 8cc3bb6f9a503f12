import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { createDatabase, type Database } from '../../src/adapters/db/create-db.ts';
import { migrate } from '../../src/platform/db/migrate.ts';
import { grantServing } from '../../src/kernel/db/row-security.ts';

export const PGLITE_TEMPLATE = path.join(os.tmpdir(), 'svc-test-pglite-0.5.14.tar');

/** The serving role of the PostgreSQL tests: logs in, owns nothing, may not step over row-level security. */
export const SERVING_ROLE = 'svc_app';

/** TEST_DATABASE_URL with the serving role as its user (local connections are trusted, so no password). */
export function servingUrl(ownerUrl: string): string {
  const url = new URL(ownerUrl);
  url.username = SERVING_ROLE;
  url.password = '';
  return url.toString();
}

/** Roles are cluster-wide and test files start together: created once, idempotently, as the owner. */
async function ensureServingRole(ownerUrl: string): Promise<void> {
  const c = new pg.Client({ connectionString: ownerUrl });
  await c.connect();
  try {
    await c.query(`do $$ begin
      if not exists (select from pg_roles where rolname = '${SERVING_ROLE}') then
        begin create role ${SERVING_ROLE} login; exception when duplicate_object or unique_violation then null; end;
      end if;
    end $$`);
    const r = await c.query<{ ok: boolean }>(
      `select rolcanlogin and not rolsuper and not rolbypassrls and not rolcreaterole as ok from pg_roles where rolname = $1`,
      [SERVING_ROLE],
    );
    if (!r.rows[0]?.ok)
      await c.query(`alter role ${SERVING_ROLE} login nosuperuser nobypassrls nocreaterole`).catch(() => undefined);
  } finally {
    await c.end();
  }
}

/**
 * A migrated database of its own for one test file: a fresh schema on TEST_DATABASE_URL (owned by its user, served
 * by the role `svc_app`, so row-level security holds every test), or else an in-memory PGlite loaded from the
 * template dump: inside the test's process, or on a thread of its own as `npm start` runs it with `thread` (or
 * TEST_PGLITE_WORKER=1 for every test). `drop()` removes it.
 */
export async function openTestDatabase(
  options: { thread?: boolean } = {},
): Promise<Database & { schema: string | null; drop(): Promise<void> }> {
  const url = process.env.TEST_DATABASE_URL;
  if (url) {
    const schema = `t_${randomBytes(6).toString('hex')}`;
    const separate = process.env.TEST_SINGLE_ROLE !== '1';
    if (separate) await ensureServingRole(url);
    const database = await createDatabase({
      kind: 'postgres',
      url: separate ? servingUrl(url) : url,
      ownerUrl: separate ? url : undefined,
      schema,
      poolSize: 12,
    });
    await migrate(database.owner);
    if (separate) await grantServing(database.owner, SERVING_ROLE);
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
  const thread = options.thread ?? process.env.TEST_PGLITE_WORKER === '1';
  const database = await createDatabase({ kind: 'pglite', dataDir: null, loadDataDir, thread });
  await migrate(database.db);
  return { ...database, schema: null, drop: () => database.close() };
}
