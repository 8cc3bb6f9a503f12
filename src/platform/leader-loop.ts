import type { Logger } from 'pino';
import { LeaderLock, type LockSession } from '../kernel/db/leader-lock.ts';
import type { StoredEvent } from '../kernel/es/event.ts';

/** What a feature declares: a round of work, how often at most, and what makes work for it. */
export interface LoopSpec {
  /** Names the advisory lock: one leader per name and schema. */
  name: string;
  /**
   * The wait between rounds when the round does not tell when its next work is due. 0: the loop does not run.
   */
  intervalMs: number;
  /**
   * One round. It may answer when its next work is due (the earliest retry, the next scheduled run), or null when
   * none is known: the loop then sleeps until then, at most `idleMs`, unless an append wakes it.
   */
  run(): Promise<Date | null | void>;
  /** The longest sleep while no work is known (a safety round: work made by a node that could not tell this one). */
  idleMs?: number;
  /** Event types that make work for the loop: an append of one on this node wakes it (another node's, through `nodes`). */
  wakeOn?: readonly string[];
}

export interface LeaderLoopOptions extends LoopSpec {
  /** The node's lock session (PostgreSQL); null on PGlite (one process owns the data directory). */
  locks: LockSession | null;
  log: Logger;
  /** This node's appends (for `wakeOn`). */
  appends?: { onAppended(listener: (events: readonly StoredEvent[]) => void): () => void };
  /** The other nodes: `subscribe(wake)` when one of them appended; `poke()` tells them of this node's appends. */
  nodes?: { subscribe(wake: () => void): () => void; poke(): void };
}

/**
 * Runs `run` while this node holds the named leader lock (a session advisory lock), so any number of nodes may run
 * the loop and exactly one does the work; a node that loses its connection loses the lock and another takes over on
 * its next round. Rounds come `intervalMs` apart, or when the last one said work is due, or when an append of a
 * `wakeOn` type wakes the loop; while nothing is due and nothing is appended, one round every `idleMs`.
 */
export function startLeaderLoop(opts: LeaderLoopOptions): { stop(): Promise<void>; wake(): void } {
  let stopped = false;
  const lock = new LeaderLock(opts.locks, `:${opts.name}`);
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | null = null;
  let again = false;
  const offs: (() => void)[] = [];

  let wakeAt = Infinity;
  let lastRound = 0;
  const sleep = (ms: number): void => {
    clearTimeout(timer);
    wakeAt = Date.now() + ms;
    if (!stopped) timer = setTimeout(tick, ms);
  };
  /** A wake: the next round now, or `intervalMs` after the last one began (rounds never come closer). */
  const wake = (): void => {
    const at = lastRound + opts.intervalMs;
    if (running) again = true;
    else if (at <= Date.now()) tick();
    else if (at < wakeAt) sleep(at - Date.now());
  };

  const tick = (): void => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    clearTimeout(timer);
    wakeAt = Infinity;
    lastRound = Date.now();
    let next = opts.intervalMs;
    running = (async () => {
      if (!(await lock.acquire())) return;
      const due = await opts.run();
      if (due === undefined) return;
      const idle = opts.idleMs ?? opts.intervalMs;
      next = due === null ? idle : Math.min(idle, Math.max(opts.intervalMs, due.getTime() - Date.now()));
    })()
      .catch(async (err) => {
        opts.log.error({ err, loop: opts.name }, 'leader loop failed; retrying');
        await lock.reset();
      })
      .finally(() => {
        running = null;
        if (again) {
          again = false;
          sleep(opts.intervalMs);
        } else sleep(next);
      });
  };

  if (opts.intervalMs > 0) {
    const wakeOn = new Set(opts.wakeOn ?? []);
    if (wakeOn.size > 0 && opts.appends)
      offs.push(
        opts.appends.onAppended((events) => {
          if (!events.some((e) => wakeOn.has(e.type))) return;
          // Another node leads: tell it (this node tries the lock again at its idle round).
          if (opts.locks && !lock.held()) opts.nodes?.poke();
          else wake();
        }),
      );
    // Another node's append: only the node that leads the loop has work to do.
    if (wakeOn.size > 0 && opts.nodes) offs.push(opts.nodes.subscribe(() => lock.held() && wake()));
    sleep(opts.intervalMs);
  }

  return {
    wake,
    stop: async () => {
      stopped = true;
      for (const off of offs) off();
      clearTimeout(timer);
      await running;
      await lock.release();
    },
  };
}
