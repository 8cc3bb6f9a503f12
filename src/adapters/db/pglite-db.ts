import { PGlite } from '@electric-sql/pglite';
import { createPgConfig } from '@electric-sql/pglite/node-postgres';
import { unaccent } from '@electric-sql/pglite/contrib/unaccent';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Database, DB } from '../../kernel/db/database.ts';
import { lockDataDir } from './data-dir-lock.ts';

/** The embedded database (PGlite) in a data directory, or in memory without one; one process holds the directory. */
export async function openPglite(config: { dataDir: string | null; loadDataDir?: Blob }): Promise<Database> {
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
      owner: db,
      separateRoles: false,
      servingRole: null,
      kind: 'pglite',
      pool,
      locks: null,
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
