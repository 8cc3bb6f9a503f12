/**
 * The node's leader locks: session advisory locks held on one connection outside the request pool (PostgreSQL:
 * `adapters/db/pg-lock-session.ts`). Each name is held at most once per node; `holds` says whether a lock taken under
 * `generation` is still held (a broken connection drops every lock and moves the generation on).
 */
export interface LockSession {
  tryLock(key: string): Promise<number | null>;
  holds(key: string, generation: number): boolean;
  unlock(key: string, generation: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * A session advisory lock: the leader of a loop. It lives on the node's lock session (one connection outside the
 * request pool, `LockSession`), never on a pooled connection, so leaders cannot take the connections requests
 * need. A failed run gives the lock up (another node may lead next); a broken lock connection loses every lock on
 * it, and each leader takes its lock anew on a fresh connection at its next tick.
 */
export class LeaderLock {
  private generation: number | null = null;

  constructor(
    private readonly locks: LockSession | null,
    private readonly key: string,
  ) {}

  /** Whether this node leads now: holds the lock already, or takes it. Without a lock session (PGlite) always. */
  async acquire(): Promise<boolean> {
    if (!this.locks) return true;
    if (this.generation !== null && this.locks.holds(this.key, this.generation)) return true;
    this.generation = await this.locks.tryLock(this.key);
    return this.generation !== null;
  }

  /** After a failed run: give the lock up, so that another node may lead next. */
  /** Whether this node held the lock when last asked (no round trip). */
  held(): boolean {
    return this.locks === null || (this.generation !== null && this.locks.holds(this.key, this.generation));
  }

  async reset(): Promise<void> {
    await this.release();
  }

  async release(): Promise<void> {
    const generation = this.generation;
    this.generation = null;
    if (this.locks && generation !== null) await this.locks.unlock(this.key, generation);
  }
}
