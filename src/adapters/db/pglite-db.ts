import { PGlite } from '@electric-sql/pglite';
import { createPgConfig } from '@electric-sql/pglite/node-postgres';
import { unaccent } from '@electric-sql/pglite/contrib/unaccent';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import pg from 'pg';
import type { Database } from '../../kernel/db/database.ts';
import { registerSiteReaders, SITE_SETTING } from '../../kernel/tenancy/site.ts';
import { lockDataDir } from './data-dir-lock.ts';
import { PgliteThread } from './pglite-thread.ts';
import { ThreadPgConnection } from './pglite-thread-connection.ts';
import { pipelinedKysely, siteScopedReaders } from './site-scoped.ts';

export interface PgliteConfig {
  dataDir: string | null;
  loadDataDir?: Blob;
  /** Run the database on a thread of its own (SVC_PGLITE_WORKER), beside the one serving requests. */
  thread?: boolean;
}

/**
 * The embedded database (PGlite) in a data directory, or in memory without one; one process holds the directory.
 * On its own thread (adapters/db/pglite-worker.ts) or inside this one: either way node-postgres talks to it through
 * a pool of one connection, so statements, transactions and errors behave the same, and kysely drives it as it
 * drives PostgreSQL (adapters/db/site-scoped.ts): `begin`, site settings and savepoints go with the next statement,
 * a site's read goes with its setting in one implicit transaction, fixed-shape statements are parsed once. On the
 * thread each of those statements would be a round trip between threads; inside the process, a trip through PGlite's
 * protocol layer.
 */
export async function openPglite(config: PgliteConfig): Promise<Database> {
  const unlock = config.dataDir ? lockDataDir(config.dataDir) : () => undefined;
  try {
    const opened = config.thread ? await onThread(config) : await inProcess(config);
    // PGlite runs one transaction at a time: a pool of one connection, never two.
    const pool = new pg.Pool({ ...opened.pgConfig, max: 1 } as pg.PoolConfig);
    const db = pipelinedKysely(pool);
    registerSiteReaders(db, siteScopedReaders(pool, SITE_SETTING));
    return {
      db,
      owner: db,
      separateRoles: false,
      servingRole: null,
      kind: 'pglite',
      pool,
      locks: null,
      close: async () => {
        await db.destroy();
        await opened.close();
        unlock();
      },
    };
  } catch (err) {
    unlock();
    throw err;
  }
}

interface Opened {
  /** What node-postgres connects with (the connection object and the fields PGlite's config gives it). */
  pgConfig: object;
  close(): Promise<void>;
}

async function inProcess(config: PgliteConfig): Promise<Opened> {
  const pglite = new PGlite(config.dataDir ?? 'memory://', {
    extensions: { unaccent, pg_trgm },
    loadDataDir: config.loadDataDir,
  });
  await pglite.waitReady;
  return { pgConfig: createPgConfig(pglite), close: () => pglite.close() };
}

async function onThread(config: PgliteConfig): Promise<Opened> {
  const loadDataDir = config.loadDataDir ? new Uint8Array(await config.loadDataDir.arrayBuffer()) : undefined;
  const thread = await PgliteThread.start({ dataDir: config.dataDir, loadDataDir });
  // The fields of PGlite's own config (`createPgConfig`), with the thread's connection.
  const pgConfig = {
    connection: new ThreadPgConnection(thread),
    user: 'postgres',
    password: 'dummy',
    database: 'postgres',
    host: 'localhost',
    port: 5432,
  };
  return { pgConfig, close: () => thread.close() };
}
