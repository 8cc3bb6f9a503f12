import { PGlite } from '@electric-sql/pglite';
import { createPgConfig } from '@electric-sql/pglite/node-postgres';
import { unaccent } from '@electric-sql/pglite/contrib/unaccent';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { DB } from './database.ts';
import { lockDataDir } from './data-dir-lock.ts';

// bigint (int8) columns arrive as strings; global positions are compared as bigint in code.
pg.types.setTypeParser(20, (v) => v);

export interface Database {
  db: Kysely<DB>;
  kind: 'pglite' | 'postgres';
  /** A pool of its own for leader locks (PostgreSQL only). */
  pool: pg.Pool;
  close(): Promise<void>;
}

export type DatabaseConfig =
  | { kind: 'postgres'; url: string; schema?: string; poolSize?: number }
  | { kind: 'pglite'; dataDir: string | null; loadDataDir?: Blob };

export async function createDatabase(config: DatabaseConfig): Promise<Database> {
  return config.kind === 'postgres' ? openPostgres(config) : openPglite(config);
}

async function openPostgres(config: { url: string; schema?: string; poolSize?: number }): Promise<Database> {
  if (config.schema) {
    const admin = new pg.Client({ connectionString: config.url });
    await admin.connect();
    await admin.query(`create schema if not exists "${config.schema}"`);
    await admin.end();
  }
  // Options in the URL (e.g. a search_path) would replace ours wholesale: merge both.
  const url = new URL(config.url);
  const given = url.searchParams.get('options') ?? '';
  url.searchParams.delete('options');
  const options = [
    '-c idle_in_transaction_session_timeout=30000', // one stuck session must not stall projections (DESIGN §3)
    given,
    config.schema ? `-c search_path=${config.schema}` : '',
  ].filter(Boolean);
  const pool = new pg.Pool({
    connectionString: url.toString(),
    max: config.poolSize ?? 10,
    options: options.join(' '),
    // Names this process's connections in pg_stat_activity (the schema, when it has one of its own).
    application_name: config.schema ? `content-service:${config.schema}` : 'content-service',
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
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  return { db, kind: 'postgres', pool, close: () => db.destroy() };
}

async function openPglite(config: { dataDir: string | null; loadDataDir?: Blob }): Promise<Database> {
  const unlock = config.dataDir ? lockDataDir(config.dataDir) : () => undefined;
  try {
    const pglite = new PGlite(config.dataDir ?? 'memory://', {
      extensions: { unaccent, pg_trgm },
      loadDataDir: config.loadDataDir,
    });
    await pglite.waitReady;
    // PGlite runs one transaction at a time: a pool of one connection, never two.
    const pool = new pg.Pool({ ...createPgConfig(pglite), max: 1 } as pg.PoolConfig);
    const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
    return {
      db,
      kind: 'pglite',
      pool,
      close: async () => {
        await db.destroy();
        await pglite.close();
        unlock();
      },
    };
  } catch (err) {
    unlock();
    throw err;
  }
}
