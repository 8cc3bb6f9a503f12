import type { LockSession } from '../kernel/db/leader-lock.ts';
import type { Logger } from 'pino';
import { LeaderLock } from '../kernel/db/leader-lock.ts';

export interface LeaderLoopOptions {
  /** Names the advisory lock: one leader per name and schema. */
  name: string;
  /** The node's lock session (PostgreSQL); null on PGlite (one process owns the data directory). */
  locks: LockSession | null;
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
  const lock = new LeaderLock(opts.locks, `:${opts.name}`);
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();

  const tick = (): void => {
    if (stopped) return;
    running = (async () => {
      if (await lock.acquire()) await opts.run();
    })()
      .catch(async (err) => {
        opts.log.error({ err, loop: opts.name }, 'leader loop failed; retrying');
        await lock.reset();
      })
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
      await lock.release();
    },
  };
}
