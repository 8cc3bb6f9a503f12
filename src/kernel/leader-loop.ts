import type pg from 'pg';
import type { Logger } from 'pino';

export interface LeaderLoopOptions {
  /** Names the advisory lock: one leader per name and schema. */
  name: string;
  /** PostgreSQL pool for the lock; null on PGlite (one process owns the data directory). */
  lockPool: pg.Pool | null;
  intervalMs: number;
  run(): Promise<void>;
  log: Logger;
}

/**
 * Runs `run` every `intervalMs` while this node holds the named leader lock (a session advisory lock), so any
 * number of nodes may run the loop and exactly one does the work. A node that loses its connection loses the lock
 * and another takes over on its next tick.
 */
export function startLeaderLoop(opts: LeaderLoopOptions): { stop(): Promise<void> } {
  let stopped = false;
  let client: pg.PoolClient | null = null;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();

  const isLeader = async (): Promise<boolean> => {
    if (!opts.lockPool) return true;
    if (client) return true;
    const c = await opts.lockPool.connect();
    const r = await c.query<{ ok: boolean }>(`select pg_try_advisory_lock(hashtext(current_schema() || $1)) as ok`, [
      `:${opts.name}`,
    ]);
    if (r.rows[0]?.ok) {
      client = c;
      c.on('error', () => (client = null));
      return true;
    }
    c.release();
    return false;
  };

  const tick = (): void => {
    if (stopped) return;
    running = (async () => {
      if (await isLeader()) await opts.run();
    })()
      .catch((err) => opts.log.error({ err, loop: opts.name }, 'leader loop failed; retrying'))
      .finally(() => {
        if (!stopped) timer = setTimeout(tick, opts.intervalMs);
      });
  };
  if (opts.intervalMs > 0) timer = setTimeout(tick, opts.intervalMs);

  return {
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await running;
      if (client) {
        await client.query(`select pg_advisory_unlock_all()`).catch(() => undefined);
        client.release();
        client = null;
      }
    },
  };
}
