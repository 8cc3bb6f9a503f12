import pg from 'pg';
import type { LockSession } from '../../kernel/db/leader-lock.ts';

/** A lock query, or opening the connection, that takes longer than this counts as a broken connection. */
const QUERY_TIMEOUT_MS = 10_000;

/**
 * The one connection of a node that holds its leader locks (session advisory locks), outside the request pool: a
 * leader holds its lock for as long as it leads, and five leaders held five pooled connections, so a small pool
 * (DATABASE_POOL_SIZE=4) left none to requests. Session locks of many names live on one session; each name is held
 * at most once per node (a session would grant its own lock again). When the connection breaks, the server drops
 * every lock it held: the generation moves on, so each holder sees it lost its lock and asks again on a new one.
 */
export class PgLockSession implements LockSession {
  private client: pg.Client | null = null;
  private opening: Promise<pg.Client> | null = null;
  /** The names held (or being asked for) on the current connection. */
  private readonly held = new Set<string>();
  private generation = 0;
  private closed = false;

  constructor(private readonly options: pg.ClientConfig) {}

  /** Takes the named lock unless this node or another holds it; the generation it is held under, or null. */
  async tryLock(key: string): Promise<number | null> {
    if (this.closed || this.held.has(key)) return null;
    this.held.add(key);
    let c: pg.Client | null = null;
    try {
      c = await this.connection();
      const gen = this.generation;
      const r = await c.query<{ ok: boolean }>(`select pg_try_advisory_lock(hashtext(current_schema() || $1)) as ok`, [
        key,
      ]);
      if (r.rows[0]?.ok === true && gen === this.generation) return gen;
      if (gen === this.generation) this.held.delete(key);
      return null;
    } catch (err) {
      this.held.delete(key);
      if (c) this.drop(c);
      throw err;
    }
  }

  /** Whether the named lock taken under `generation` is still held (its connection has not broken since). */
  holds(key: string, generation: number): boolean {
    return generation === this.generation && this.held.has(key);
  }

  /** Gives the named lock back; a failed unlock drops the connection, which drops the lock with it. */
  async unlock(key: string, generation: number): Promise<void> {
    const c = this.client;
    if (!c || !this.holds(key, generation)) return;
    this.held.delete(key);
    try {
      await c.query(`select pg_advisory_unlock(hashtext(current_schema() || $1))`, [key]);
    } catch {
      this.drop(c);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    const c = this.client ?? (await this.opening?.catch(() => null));
    if (c) this.drop(c);
    await c?.end().catch(() => undefined);
  }

  private async connection(): Promise<pg.Client> {
    if (this.client) return this.client;
    this.opening ??= (async () => {
      const c = new pg.Client({
        ...this.options,
        query_timeout: QUERY_TIMEOUT_MS,
        connectionTimeoutMillis: QUERY_TIMEOUT_MS,
        keepAlive: true,
      });
      // Without a listener an 'error' would end the process; with one, the locks are given up as lost.
      c.on('error', () => this.drop(c));
      c.on('end', () => this.drop(c));
      try {
        await c.connect();
      } catch (err) {
        c.end().catch(() => undefined);
        throw err;
      }
      this.client = c;
      return c;
    })().finally(() => {
      this.opening = null;
    });
    return this.opening;
  }

  /** Ends a connection that failed: the server drops its locks, so none of them is held any more. */
  private drop(c: pg.Client): void {
    if (this.client !== c) return;
    this.client = null;
    this.generation++;
    this.held.clear();
    c.end().catch(() => undefined);
  }
}
