import {
  CompiledQuery,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type QueryResult,
} from 'kysely';
import pg from 'pg';
import Result from 'pg/lib/result.js';
import { prepareValue } from 'pg/lib/utils.js';
import type { DB } from './database.ts';

/**
 * Reads under row-level security in one round trip. Each statement is sent in PostgreSQL's extended protocol right
 * behind `select set_config('svc.site_id', $site, true)`, with one Sync after both: the two run in one implicit
 * transaction, so the setting holds for the statement and ends with it, and the statement costs one round trip
 * instead of four (begin, set_config, the statement, commit). The wall is unchanged: the setting is still
 * transaction-local, and a statement sent without it still sees nothing.
 *
 * Each statement is its own transaction: for reads, where one statement or two independent ones answer (a list and
 * its total may then see two snapshots), and single-statement writes; work that must commit together runs in a
 * transaction (`withSite`, or `.transaction()` on a reader, which starts under the reader's site).
 */
const SET_SITE = 'svc_set_site';
const SET_SITE_SQL = 'select set_config($1, $2, true)';
/** Connections on which the named `set_config` statement has been parsed. */
const prepared = new WeakSet<object>();

interface Connection {
  parse(m: { text: string; name?: string; types?: unknown[] }): void;
  bind(m: { portal?: string; statement?: string; values: unknown[]; valueMapper: typeof prepareValue }): void;
  describe(m: { type: 'P' | 'S'; name: string }): void;
  execute(m: { portal?: string; rows?: number }): void;
  sync(): void;
  sendCopyFail(msg: string): void;
  stream: { cork?: () => void; uncork?: () => void };
}

/** A node-postgres "submittable": two statements, one Sync, the second's rows as the result. */
class SiteScopedQuery {
  callback?: (err: Error | null, result?: pg.QueryResult) => void;
  private readonly result = new Result(undefined, undefined);
  /** 0 while the setting's statement is answering, 1 for the statement itself. */
  private phase = 0;
  private failed: Error | null = null;

  constructor(
    private readonly setting: string,
    private readonly site: string,
    private readonly text: string,
    private readonly values: readonly unknown[],
  ) {}

  submit(connection: Connection): null {
    connection.stream.cork?.();
    try {
      if (!prepared.has(connection)) {
        connection.parse({ text: SET_SITE_SQL, name: SET_SITE, types: [] });
        prepared.add(connection);
      }
      connection.bind({ statement: SET_SITE, values: [this.setting, this.site], valueMapper: prepareValue });
      connection.execute({});
      connection.parse({ text: this.text, types: [] });
      connection.bind({ values: [...this.values], valueMapper: prepareValue });
      connection.describe({ type: 'P', name: '' });
      connection.execute({});
      connection.sync();
    } finally {
      connection.stream.uncork?.();
    }
    return null;
  }

  handleRowDescription(msg: { fields: unknown[] }): void {
    if (this.phase === 1) this.result.addFields(msg.fields);
  }

  handleDataRow(msg: { fields: unknown[] }): void {
    if (this.phase !== 1 || this.failed) return;
    try {
      this.result.addRow(this.result.parseRow(msg.fields));
    } catch (err) {
      this.failed = err as Error;
    }
  }

  handleCommandComplete(msg: unknown): void {
    if (this.phase++ === 1) this.result.addCommandComplete(msg);
  }

  handleEmptyQuery(): void {
    this.phase++;
  }

  handleError(err: Error & { code?: string }, connection: Connection): void {
    // The named statement is gone only if the session lost it (it never fails to parse): parse it again next time.
    if (err.code === '26000') prepared.delete(connection);
    this.callback?.(err);
  }

  handleReadyForQuery(): void {
    if (this.failed) this.callback?.(this.failed);
    else this.callback?.(null, this.result as unknown as pg.QueryResult);
  }

  handlePortalSuspended(): void {}

  handleCopyInResponse(connection: Connection): void {
    connection.sendCopyFail('copy is not supported here');
  }

  handleCopyData(): void {}
}

function runScoped(client: pg.PoolClient, setting: string, site: string, q: CompiledQuery): Promise<pg.QueryResult> {
  return new Promise((resolve, reject) => {
    const query = new SiteScopedQuery(setting, site, q.sql, q.parameters);
    query.callback = (err, res) => (err ? reject(err) : resolve(res!));
    client.query(query as unknown as pg.QueryConfig);
  });
}

const AFFECTS = new Set(['INSERT', 'UPDATE', 'DELETE', 'MERGE']);

class ScopedConnection implements DatabaseConnection {
  /** Inside a transaction (asSystem or withSite on a reader) statements go as they are: the setting is the trx's. */
  inTransaction = false;
  constructor(
    readonly client: pg.PoolClient,
    private readonly setting: string,
    private readonly site: string,
  ) {}

  async executeQuery<R>(q: CompiledQuery): Promise<QueryResult<R>> {
    const r = this.inTransaction
      ? await this.client.query(q.sql, [...q.parameters])
      : await runScoped(this.client, this.setting, this.site, q);
    return {
      rows: (r.rows ?? []) as R[],
      numAffectedRows: AFFECTS.has(r.command) ? BigInt(r.rowCount ?? 0) : undefined,
    };
  }

  // eslint-disable-next-line require-yield
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streaming is not available on a site-scoped reader');
  }
}

class ScopedDriver implements Driver {
  constructor(
    private readonly pool: pg.Pool,
    private readonly setting: string,
    private readonly site: string,
  ) {}
  async init(): Promise<void> {}
  async acquireConnection(): Promise<DatabaseConnection> {
    return new ScopedConnection(await this.pool.connect(), this.setting, this.site);
  }
  /** A transaction on a reader starts under the reader's site, as `withSite` would. */
  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    const c = connection as ScopedConnection;
    await c.client.query('begin');
    c.inTransaction = true;
    await c.client.query(SET_SITE_SQL, [this.setting, this.site]);
  }
  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await this.end(connection as ScopedConnection, 'commit');
  }
  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await this.end(connection as ScopedConnection, 'rollback');
  }
  private async end(c: ScopedConnection, how: 'commit' | 'rollback'): Promise<void> {
    try {
      await c.client.query(how);
    } finally {
      c.inTransaction = false;
    }
  }
  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    (connection as ScopedConnection).client.release();
  }
  async destroy(): Promise<void> {}
}

/**
 * Site-scoped readers on a pool: one Kysely per site (they share the pool), kept for the busiest `max` sites.
 */
export function siteScopedReaders(pool: pg.Pool, setting: string, max = 2000): (site: string) => Kysely<DB> {
  const readers = new Map<string, Kysely<DB>>();
  return (site) => {
    let k = readers.get(site);
    if (k) {
      // Most recently used last, so the first entry is the one to drop.
      readers.delete(site);
      readers.set(site, k);
      return k;
    }
    const dialect: Dialect = {
      createAdapter: () => new PostgresAdapter(),
      createDriver: () => new ScopedDriver(pool, setting, site),
      createIntrospector: (db) => new PostgresIntrospector(db),
      createQueryCompiler: () => new PostgresQueryCompiler(),
    };
    k = new Kysely<DB>({ dialect });
    readers.set(site, k);
    if (readers.size > max) readers.delete(readers.keys().next().value!);
    return k;
  };
}
