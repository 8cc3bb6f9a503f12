import { sql, type Kysely } from 'kysely';
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
