import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Database, DB } from '../../kernel/db/database.ts';
import { PgLockSession } from './pg-lock-session.ts';
import { registerSiteReaders, SITE_SETTING, SYSTEM_SITE } from '../../kernel/tenancy/site.ts';
import { pipelinedKysely, siteScopedReaders } from './site-scoped.ts';
import type { PgliteConfig } from './pglite-db.ts';

// bigint (int8) columns arrive as strings; global positions are compared as bigint in code.
pg.types.setTypeParser(20, (v) => v);

export type DatabaseConfig =
  | { kind: 'postgres'; url: string; ownerUrl?: string; schema?: string; poolSize?: number }
  | ({ kind: 'pglite' } & PgliteConfig);

export type { Database };

export async function createDatabase(config: DatabaseConfig): Promise<Database> {
  if (config.kind === 'postgres') return openPostgres(config);
  // The embedded database loads only where it is used: a PostgreSQL process never loads PGlite's WebAssembly.
  const { openPglite } = await import('./pglite-db.ts');
  return openPglite(config);
}

type PostgresConfig = { url: string; ownerUrl?: string; schema?: string; poolSize?: number };

/**
 * The smallest serving pool (DATABASE_POOL_SIZE): a request's transaction, and the background work of the node
 * (the async projection worker, the reactors, the relay, the loops: each checks one connection out at a time while
 * it works, never while it waits) beside it, so neither waits for the other to finish. Leader locks hold no pooled
 * connection (`locks`); with one connection, a slow projection batch would hold every request up.
 */
export const MIN_POOL_SIZE = 2;

/** Refuses a serving pool the service cannot work with (a handle for one-connection tests may still open one). */
export function checkPoolSize(poolSize: number): void {
  if (poolSize < MIN_POOL_SIZE)
    throw new Error(
      `DATABASE_POOL_SIZE is ${poolSize}: the service needs at least ${MIN_POOL_SIZE} connections, one for requests and one for the background work beside them (leader locks have a connection of their own)`,
    );
}

/**
 * PostgreSQL with two roles when `ownerUrl` is given: the serving pool (`url`) carries no site setting, so row-level
 * security shows it nothing until a transaction sets one; a small owner pool runs migrations and DDL. With one URL,
 * the one role owns and serves, and its sessions default to the instance-wide setting (the application's own
 * filters are then the only wall).
 */
async function openPostgres(config: PostgresConfig): Promise<Database> {
  const poolSize = config.poolSize ?? 10;
  const separate = Boolean(config.ownerUrl) && config.ownerUrl !== config.url;
  if (config.schema) {
    const admin = new pg.Client({ connectionString: config.ownerUrl ?? config.url });
    await admin.connect();
    await admin.query(`create schema if not exists "${config.schema}"`);
    await admin.end();
  }
  const pool = openPool(config.url, config.schema, poolSize, !separate);
  const locks = new PgLockSession(pool.options);
  // Statements whose answer nobody reads (begin, the site setting, savepoints) travel with the next one.
  const db = pipelinedKysely(pool);
  // Reads send the site with each statement in one round trip (adapters/db/site-scoped.ts).
  registerSiteReaders(db, siteScopedReaders(pool, SITE_SETTING));
  if (!separate)
    return {
      db,
      owner: db,
      separateRoles: false,
      servingRole: null,
      kind: 'postgres',
      pool,
      locks,
      close: async () => {
        await locks.close();
        await db.destroy();
      },
    };
  const servingRole = (await pool.query<{ r: string }>('select current_user as r')).rows[0]!.r;
  const owner = new Kysely<DB>({
    dialect: new PostgresDialect({ pool: openPool(config.ownerUrl!, config.schema, 2, true) }),
  });
  return {
    db,
    owner,
    separateRoles: true,
    servingRole,
    kind: 'postgres',
    pool,
    locks,
    close: async () => {
      await locks.close();
      await db.destroy();
      await owner.destroy();
    },
  };
}

function openPool(connectionString: string, schema: string | undefined, max: number, system: boolean): pg.Pool {
  // Options in the URL (e.g. a search_path) would replace ours wholesale: merge both.
  const url = new URL(connectionString);
  const given = url.searchParams.get('options') ?? '';
  url.searchParams.delete('options');
  const options = [
    '-c idle_in_transaction_session_timeout=30000', // one stuck session must not stall projections (DESIGN §3)
    given,
    schema ? `-c search_path=${schema}` : '',
    system ? `-c ${SITE_SETTING}=${SYSTEM_SITE}` : '',
  ].filter(Boolean);
  const pool = new pg.Pool({
    connectionString: url.toString(),
    max,
    options: options.join(' '),
    // Names this process's connections in pg_stat_activity (the schema, when it has one of its own).
    application_name: schema ? `content-service:${schema}` : 'content-service',
  });
  // An idle connection the server drops (restart, failover, admin kill) must not take the process down:
  // the pool discards it and the next query opens a new one.
  pool.on('error', (err) => console.error(`database connection lost: ${err.message}`));
  // The same for a connection that is checked out (in a transaction) when it drops: without a listener its
  // 'error' event would be unhandled and end the process. The request in flight fails on its own query; the
  // pool throws the broken connection away when it comes back.
  pool.on('connect', (client) =>
    client.on('error', (err) => console.error(`database connection lost: ${err.message}`)),
  );
  return pool;
}
