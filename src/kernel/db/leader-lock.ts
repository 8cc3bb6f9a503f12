import type pg from 'pg';

/**
 * A session advisory lock held on a connection of its own: the leader of a loop. Every failure path gives the
 * connection back: a query that fails or a connection that errors is destroyed (the server then drops the
 * lock), a lock not won is released at once, and `release()` unlocks and returns the connection. None of them
 * leaves a checked-out connection behind, so a flapping database cannot drain the pool.
 */
export class LeaderLock {
  private client: pg.PoolClient | null = null;

  constructor(
    private readonly pool: pg.Pool | null,
    private readonly key: string,
  ) {}

  /** Whether this node leads now: holds the lock already, or takes it. Without a pool (PGlite) always. */
  async acquire(): Promise<boolean> {
    if (!this.pool) return true;
    if (this.client) return true;
    const c = await this.pool.connect();
    let won = false;
    try {
      const r = await c.query<{ ok: boolean }>(`select pg_try_advisory_lock(hashtext(current_schema() || $1)) as ok`, [
        this.key,
      ]);
      won = r.rows[0]?.ok === true;
    } catch (err) {
      c.release(err as Error);
      throw err;
    }
    if (!won) {
      c.release();
      return false;
    }
    this.client = c;
    c.on('error', (err) => this.drop(c, err));
    return true;
  }

  /** After a failed run: the lock may sit on a broken connection, so give it up; the next tick takes it anew. */
  async reset(): Promise<void> {
    await this.release();
  }

  async release(): Promise<void> {
    const c = this.client;
    if (!c) return;
    this.client = null;
    try {
      await c.query(`select pg_advisory_unlock_all()`);
      c.release();
    } catch (err) {
      c.release(err as Error);
    }
  }

  private drop(c: pg.PoolClient, err: Error): void {
    if (this.client !== c) return;
    this.client = null;
    c.release(err);
  }
}
