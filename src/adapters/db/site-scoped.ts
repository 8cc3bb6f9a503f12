import {
  CompiledQuery,
  createQueryId,
  IdentifierNode,
  Kysely,
  RawNode,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type QueryCompiler,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';
import pg from 'pg';
import Result from 'pg/lib/result.js';
import { prepareValue } from 'pg/lib/utils.js';
import type { DB } from '../../kernel/db/database.ts';
import type { DeferringConnection } from '../../kernel/db/later.ts';

/**
 * PostgreSQL connections that send the statements whose answer nobody reads together with the next one, in one
 * round trip (the extended protocol's pipelining: several Parse/Bind/Execute, one Sync). PGlite's too
 * (adapters/db/pglite-db.ts), where a round trip is one between threads or one through its protocol layer.
 *
 * - Site-scoped readers: each statement goes right behind `select set_config('svc.site_id', $site, true)`, and the
 *   two run in one implicit transaction, so the setting holds for the statement and ends with it. One round trip
 *   instead of four (begin, set_config, the statement, commit). The wall is unchanged: the setting is still
 *   transaction-local, and a statement sent without it still sees nothing.
 * - The serving connection: `begin`, the site setting of `scopeTo` (`select set_config($1, $2, true)`, whose answer
 *   is not read) and the group commit's savepoints wait for the next statement and go with it, so an append's
 *   transaction costs its own statements and the commit.
 *
 * A deferred statement that fails fails the statement it travels with (PostgreSQL skips to the Sync), which is
 * where the caller would have seen it next anyway.
 */
const SET_SITE = 'svc_set_site';
const SET_SITE_SQL = 'select set_config($1, $2, true)';
/** Statements sent with the next one; their answers are not read (exact texts, no other statement is deferred). */
const DEFERRED = new Set(['begin', 'savepoint group_write', SET_SITE_SQL]);
/** Connections on which the named `set_config` statement has been parsed. */
const prepared = new WeakSet<object>();

/**
 * Named statements: a fixed-shape statement (a read by id, a page of a list, a stream's version, an append, a
 * projector's write) is parsed and planned once per connection and then only bound, which takes a third or more
 * of PostgreSQL's work per read away. Statements with a JSON-field expression (`->`, `->>`) stay unnamed: their
 * partial expression indexes are chosen against the constants of the site and collection, which a generic plan
 * does not see. Kept per connection, least recently used dropped past `MAX_NAMED` (with a Close).
 */
const MAX_NAMED = 200;
const NAMED_KINDS = /^\s*(select|insert|update|delete|with)\b/i;
const preparable = (text: string) => text.length <= 16_384 && NAMED_KINDS.test(text) && !text.includes('->');

class NamedStatements {
  /** Text → name, least recently used first. */
  readonly names = new Map<string, string>();
  /** Names whose Parse may or may not have taken (their group failed): closed before anything else is sent. */
  doubtful: string[] = [];
  next(): string {
    // One sequence for the process: a name is never used twice on a connection, even after its names were reset.
    return `svc_q${++namedSeq}`;
  }
}
let namedSeq = 0;
const namedOn = new WeakMap<object, NamedStatements>();

interface Connection {
  parse(m: { text: string; name?: string; types?: unknown[] }): void;
  bind(m: { portal?: string; statement?: string; values: unknown[]; valueMapper: typeof prepareValue }): void;
  describe(m: { type: 'P' | 'S'; name: string }): void;
  close(m: { type: 'P' | 'S'; name: string }): void;
  execute(m: { portal?: string; rows?: number }): void;
  sync(): void;
  sendCopyFail(msg: string): void;
  stream: { cork?: () => void; uncork?: () => void };
}

interface Statement {
  text: string;
  values: readonly unknown[];
  /** A write sent with a later statement (`later`): what its failure becomes, reported by the statement it rode. */
  mapError?: (err: Error) => Error;
  /** Whose write it is (see `ownWrites`): a failure of it is reported as that owner's. */
  owner?: number;
}

/** The owner of the deferred write whose failure an error reports (see `ownWrites`), if any. */
const owners = new WeakMap<object, number>();
export const failedOwner = (err: unknown): number | undefined =>
  err && typeof err === 'object' ? owners.get(err) : undefined;

/** A node-postgres "submittable": the prelude's statements, then the statement, one Sync; the last one's rows. */
class PipelinedQuery {
  callback?: (err: Error | null, result?: pg.QueryResult) => void;
  private readonly result = new Result(undefined, undefined);
  /** Statements still to complete before the one whose rows are the result. */
  private ahead: number;
  private failed: Error | null = null;

  constructor(
    private readonly prelude: readonly Statement[],
    private readonly main: Statement,
  ) {
    this.ahead = prelude.length;
  }

  submit(connection: Connection): null {
    connection.stream.cork?.();
    try {
      this.send(connection);
    } catch (err) {
      // A value that cannot be sent (node-postgres's own query does the same): whatever went out ends with a Sync,
      // so the session is ready again, and the error is the answer once it is.
      this.failed = err as Error;
      // Whose statement could not be sent: a deferred write of an earlier write in a group is that write's failure.
      if (this.sending?.owner !== undefined) owners.set(this.failed, this.sending.owner);
      this.forgetNames(connection);
      connection.sync();
    } finally {
      connection.stream.uncork?.();
    }
    return null;
  }

  /** Names this group binds (some parsed by it) and closes: all doubtful if the group fails. */
  private used: string[] = [];
  private named: NamedStatements | undefined;
  /** The statement being sent (for the owner of a value that cannot be sent). */
  private sending: Statement | undefined;

  private send(connection: Connection): void {
    let named = namedOn.get(connection);
    if (!named) namedOn.set(connection, (named = new NamedStatements()));
    this.named = named;
    // Closing a statement that does not exist is no error: a doubtful name goes, whichever way its Parse went.
    for (const name of named.doubtful) connection.close({ type: 'S', name });
    named.doubtful = [];
    for (const s of this.prelude) {
      this.sending = s;
      if (s.text === SET_SITE_SQL) {
        // The one statement sent with nearly every request: parsed once per connection, then only bound.
        if (!prepared.has(connection)) {
          connection.parse({ text: SET_SITE_SQL, name: SET_SITE, types: [] });
          prepared.add(connection);
          this.used.push(SET_SITE);
        }
        connection.bind({ statement: SET_SITE, values: [...s.values], valueMapper: prepareValue });
      } else {
        this.parseAndBind(connection, named, s);
      }
      connection.execute({});
    }
    this.sending = this.main;
    this.parseAndBind(connection, named, this.main);
    connection.describe({ type: 'P', name: '' });
    connection.execute({});
    connection.sync();
  }

  private parseAndBind(connection: Connection, named: NamedStatements, s: Statement): void {
    let name = named.names.get(s.text);
    if (name !== undefined) {
      named.names.delete(s.text);
      named.names.set(s.text, name);
      this.used.push(name);
    } else if (preparable(s.text)) {
      name = named.next();
      connection.parse({ text: s.text, name, types: [] });
      named.names.set(s.text, name);
      this.used.push(name);
      if (named.names.size > MAX_NAMED) {
        const [oldest, oldName] = named.names.entries().next().value!;
        named.names.delete(oldest);
        connection.close({ type: 'S', name: oldName });
        // A failure before the Close would skip it: it is sent again then.
        this.used.push(oldName);
      }
    } else {
      connection.parse({ text: s.text, types: [] });
    }
    connection.bind({ statement: name ?? '', values: [...s.values], valueMapper: prepareValue });
  }

  /**
   * A failed group: every name it used is forgotten and closed before the next send, and parsed again when next
   * needed. A Parse or a Close after the failure was skipped, and a name that failed may keep failing (a plan whose
   * result type changed under it, after a table was replaced): none of them is trusted again.
   */
  private forgetNames(connection: Connection): void {
    const named = this.named;
    if (!named || !this.used.length) return;
    if (this.used.includes(SET_SITE)) prepared.delete(connection);
    const used = new Set(this.used);
    for (const [text, name] of named.names) if (used.has(name)) named.names.delete(text);
    named.doubtful.push(...used);
    this.used = [];
  }

  handleRowDescription(msg: { fields: unknown[] }): void {
    if (this.ahead === 0) this.result.addFields(msg.fields);
  }

  handleDataRow(msg: { fields: unknown[] }): void {
    if (this.ahead > 0 || this.failed) return;
    try {
      this.result.addRow(this.result.parseRow(msg.fields));
    } catch (err) {
      this.failed = err as Error;
    }
  }

  handleCommandComplete(msg: unknown): void {
    if (this.ahead > 0) this.ahead--;
    else this.result.addCommandComplete(msg);
  }

  handleEmptyQuery(): void {
    if (this.ahead > 0) this.ahead--;
  }

  handleError(err: Error & { code?: string }, connection: Connection): void {
    // A named statement is missing only if the session lost them (DEALLOCATE ALL): every name is parsed again.
    if (err.code === '26000') {
      prepared.delete(connection);
      const renewed = new NamedStatements();
      const old = this.named;
      // Whatever of the old names still exists is closed, so none outlives the forgetting.
      renewed.doubtful = [
        ...new Set([...(old?.names.values() ?? []), ...(old?.doubtful ?? []), ...this.used, SET_SITE]),
      ];
      this.used = [];
      namedOn.set(connection, renewed);
    } else {
      this.forgetNames(connection);
    }
    // PostgreSQL stops at the first failure: the statement in hand is the one after those that completed. A
    // prelude statement's failure is reported as its own (whoever's value could not be sent after it).
    const failing = this.ahead > 0 ? this.prelude[this.prelude.length - this.ahead] : undefined;
    const reported = failing ? (failing.mapError ? failing.mapError(err) : err) : (this.failed ?? err);
    if (failing?.owner !== undefined) owners.set(reported, failing.owner);
    this.answer(reported);
  }

  /** Answers once: an error from the server ends the query in node-postgres, a local one waits for the Sync. */
  private answered = false;
  private answer(err: Error | null): void {
    if (this.answered) return;
    this.answered = true;
    if (err) this.callback?.(err);
    else this.callback?.(null, this.result as unknown as pg.QueryResult);
  }

  handleReadyForQuery(): void {
    this.answer(this.failed);
  }

  handlePortalSuspended(): void {}

  handleCopyInResponse(connection: Connection): void {
    connection.sendCopyFail('copy is not supported here');
  }

  handleCopyData(): void {}
}

function pipelined(client: pg.PoolClient, prelude: Statement[], main: Statement): Promise<pg.QueryResult> {
  return new Promise((resolve, reject) => {
    const query = new PipelinedQuery(prelude, main);
    query.callback = (err, res) => (err ? reject(err) : resolve(res!));
    client.query(query as unknown as pg.QueryConfig);
  });
}

const AFFECTS = new Set(['INSERT', 'UPDATE', 'DELETE', 'MERGE']);
const ROLLBACK = /^rollback\b/i;
const OPENS = /^(begin|start transaction|savepoint)\b/i;

function keptByRollback(text: string, pending: Statement[]): Statement[] {
  const opens = pending.filter((p) => OPENS.test(p.text));
  if (!/^rollback\s+to\b/i.test(text)) return opens;
  for (let last = pending.length - 1; last >= 0; last--)
    if (/^savepoint\b/i.test(pending[last]!.text)) return pending.slice(0, last + 1);
  return opens;
}

class PipelinedConnection implements DeferringConnection {
  readonly defers = true as const;
  /** Statements waiting to go with the next one. */
  private pending: Statement[] = [];
  inTransaction = false;
  /** The write that `later` statements belong to now (see `ownWrites`). */
  owner: number | undefined = undefined;

  constructor(
    readonly client: pg.PoolClient,
    /** For a site-scoped reader: the setting sent with each statement outside a transaction. */
    private readonly scope: Statement | null,
  ) {}

  async executeQuery<R>(q: CompiledQuery): Promise<QueryResult<R>> {
    if (DEFERRED.has(q.sql) && (this.inTransaction || q.sql === 'begin')) {
      if (q.sql === 'begin') this.inTransaction = true;
      this.pending.push({ text: q.sql, values: q.parameters });
      return { rows: [] };
    }
    // A rollback undoes what waits to go (writes, site settings) anyway, and in an aborted transaction any of them
    // would fail and hold the rollback back: only the transaction's start and savepoints still go. A rollback to a
    // savepoint keeps what waits before the last savepoint waiting (an earlier write's, outside what it undoes).
    const prelude = ROLLBACK.test(q.sql) ? keptByRollback(q.sql, this.pending) : this.pending;
    this.pending = [];
    if (this.scope && !this.inTransaction) prelude.unshift(this.scope);
    if (q.sql === 'commit' || q.sql === 'rollback') this.inTransaction = false;
    const r =
      // Without parameters node-postgres sends the simple protocol, which also takes several statements in one text.
      prelude.length || (q.parameters.length && preparable(q.sql))
        ? await pipelined(this.client, prelude, { text: q.sql, values: q.parameters })
        : await this.client.query(q.sql, [...q.parameters]);
    return {
      rows: (r.rows ?? []) as R[],
      numAffectedRows: AFFECTS.has(r.command) ? BigInt(r.rowCount ?? 0) : undefined,
    };
  }

  /** Sends a write whose answer nobody reads with the next statement of the transaction (see `later`). */
  later(q: CompiledQuery, mapError: (err: Error) => Error): void {
    this.pending.push({ text: q.sql, values: q.parameters, mapError, owner: this.owner });
  }

  /** Sends `text` with the next statement (a transaction's start). */
  defer(text: string): void {
    if (/^(begin|start transaction)/.test(text)) this.inTransaction = true;
    this.pending.push({ text, values: [] });
  }

  /** Called when the connection goes back to the pool: nothing deferred may survive into another's use. */
  reset(): void {
    this.pending = [];
    this.inTransaction = false;
    this.owner = undefined;
  }

  // eslint-disable-next-line require-yield
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streaming is not available on this connection');
  }
}

class PipelinedDriver implements Driver {
  constructor(
    private readonly pool: pg.Pool,
    private readonly scope: Statement | null,
    private readonly owned: boolean,
  ) {}
  async init(): Promise<void> {}
  async acquireConnection(): Promise<DatabaseConnection> {
    return new PipelinedConnection(await this.pool.connect(), this.scope);
  }
  /**
   * The start goes with the transaction's first statement, as kysely's own driver words it (isolation level and
   * access mode honoured); a reader's transaction starts under the reader's site, as `withSite` would.
   */
  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    const c = connection as PipelinedConnection;
    let start = 'begin';
    if (settings.isolationLevel || settings.accessMode) {
      start = 'start transaction';
      if (settings.isolationLevel) start += ` isolation level ${settings.isolationLevel}`;
      if (settings.accessMode) start += ` ${settings.accessMode}`;
    }
    c.defer(start);
    if (this.scope) await c.executeQuery(CompiledQuery.raw(this.scope.text, [...this.scope.values]));
  }
  async savepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']) {
    await connection.executeQuery(compile(savepointCommand('savepoint', name), createQueryId()));
  }
  async rollbackToSavepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']) {
    await connection.executeQuery(compile(savepointCommand('rollback to', name), createQueryId()));
  }
  async releaseSavepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']) {
    await connection.executeQuery(compile(savepointCommand('release', name), createQueryId()));
  }
  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('commit'));
  }
  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('rollback'));
  }
  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    const c = connection as PipelinedConnection;
    c.reset();
    // A connection still inside a transaction (a rollback that could not run) is closed, never handed on.
    const status = c.client.getTransactionStatus?.();
    c.client.release(
      status && status !== 'I' ? new Error(`connection released in transaction state ${status}`) : undefined,
    );
  }
  async destroy(): Promise<void> {
    if (this.owned) await this.pool.end();
  }
}

/** `savepoint "name"` and its kin, the name quoted as an identifier (as kysely's own driver builds them). */
const savepointCommand = (command: string, name: string) =>
  RawNode.createWithChildren([RawNode.createWithSql(`${command} `), IdentifierNode.create(name)]);

function dialect(pool: pg.Pool, scope: Statement | null, owned: boolean): Dialect {
  return {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new PipelinedDriver(pool, scope, owned),
    createIntrospector: (db) => new PostgresIntrospector(db),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  };
}

/** The serving database on a pool (which `destroy()` ends), with its deferred statements pipelined. */
export function pipelinedKysely(pool: pg.Pool): Kysely<DB> {
  return new Kysely<DB>({ dialect: dialect(pool, null, true) });
}

/**
 * Site-scoped readers on a pool: one Kysely per site (they share the pool), kept for the busiest `max` sites.
 * Each statement outside a transaction is its own transaction: for reads, where one statement or two independent
 * ones answer (a list and its total may then see two snapshots), and single-statement writes; work that must
 * commit together runs in a transaction (`withSite`, or `.transaction()` on a reader).
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
    k = new Kysely<DB>({ dialect: dialect(pool, { text: SET_SITE_SQL, values: [setting, site] }, false) });
    readers.set(site, k);
    if (readers.size > max) readers.delete(readers.keys().next().value!);
    return k;
  };
}
