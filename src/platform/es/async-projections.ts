import { sql, type Kysely } from 'kysely';
import type { LockSession } from '../../kernel/db/leader-lock.ts';
import { LeaderLock } from '../../kernel/db/leader-lock.ts';
import type { Logger } from 'pino';
import type { DB } from '../../kernel/db/database.ts';
import type { GlobalLog } from '../../kernel/es/event-store.ts';
import { applyAll } from './projection-engine.ts';
import { withSystem } from '../../kernel/tenancy/site.ts';
import { liveTable, noInstanceKey, type ProjectionContext, type Projector } from '../../kernel/es/projector.ts';

const BATCH = 500;

class CheckpointMoved extends Error {}

/**
 * Applies one batch to an async projector: its rows and its checkpoint commit together, and the checkpoint
 * moves only by compare-and-set, so a second worker (or a rebuild) makes this batch roll back, not repeat.
 * Returns the number of events read; after losing that race it still returns the batch size, because the
 * winner may have read a shorter batch than this one and the caller must look again before it calls the
 * projection drained.
 */
export async function catchUpOnce(
  db: Kysely<DB>,
  events: GlobalLog,
  p: Projector,
  ctx: ProjectionContext = noInstanceKey,
): Promise<number> {
  // Projectors read the whole log and write every site's rows: instance-level work.
  const state = await projectionState(db, p.name);
  if (!state || state.status !== 'live') return 0;
  const batch = await events.readAll({ after: state.checkpoint ?? undefined, limit: BATCH });
  if (batch.length === 0) return 0;
  const next = batch[batch.length - 1]!.checkpoint;
  try {
    await withSystem(db, async (trx) => {
      await applyAll(trx, p, batch, liveTable, ctx);
      const moved = await trx
        .updateTable('projection_state')
        .set({ checkpoint: next, updated_at: new Date() })
        .where('name', '=', p.name)
        .where(sql<boolean>`checkpoint is not distinct from ${state.checkpoint}`)
        .executeTakeFirst();
      if (Number(moved.numUpdatedRows) !== 1) throw new CheckpointMoved();
    });
  } catch (err) {
    if (err instanceof CheckpointMoved) return batch.length;
    throw err;
  }
  return batch.length;
}

/** A projector's stored checkpoint and status; undefined before its first build. */
export function projectionState(
  db: Kysely<DB>,
  name: string,
): Promise<{ checkpoint: string | null; status: string } | undefined> {
  return withSystem(db, (trx) =>
    trx.selectFrom('projection_state').select(['checkpoint', 'status']).where('name', '=', name).executeTakeFirst(),
  );
}

export interface AsyncRunnerOptions {
  db: Kysely<DB>;
  /** The log, read through the event store port. */
  events: GlobalLog;
  /** The node's lock session for the leader lock (PostgreSQL); null on PGlite (one process owns the data directory). */
  locks: LockSession | null;
  projectors: readonly Projector[];
  log: Logger;
  pollMs?: number;
  /** What the projectors' `apply` gets (the instance keyring); none configured when left out. */
  context?: ProjectionContext;
}

/**
 * Runs the async projectors while this node holds the leader lock (a session advisory lock), so any number
 * of nodes may run and exactly one projects.
 */
export function startAsyncProjections(opts: AsyncRunnerOptions): { stop(): Promise<void>; drain(): Promise<void> } {
  const pollMs = opts.pollMs ?? 200;
  let stopped = false;
  const lock = new LeaderLock(opts.locks, ':async-projections');
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();

  const drain = async (): Promise<void> => {
    if (!(await lock.acquire())) return;
    for (const p of opts.projectors) while ((await catchUpOnce(opts.db, opts.events, p, opts.context)) > 0);
  };

  const tick = (): void => {
    if (stopped) return;
    running = drain()
      .catch(async (err) => {
        opts.log.error({ err }, 'async projection failed; retrying');
        await lock.reset();
      })
      .finally(() => {
        if (!stopped) timer = setTimeout(tick, pollMs);
      });
  };
  if (opts.projectors.length > 0) tick();

  return {
    drain: () => (running = running.then(drain)),
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await running;
      await lock.release();
    },
  };
}
