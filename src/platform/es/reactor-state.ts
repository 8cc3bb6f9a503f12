import { sql, type Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { DB } from '../../kernel/db/database.ts';
import { withSystem } from '../../kernel/tenancy/site.ts';
import type { StoredEvent } from '../../kernel/es/event.ts';
import type { GlobalLog } from '../../kernel/es/event-store.ts';
import type { Reactor } from '../../kernel/es/reactor.ts';

/** Tries of one event before it is parked; the waits between them double from one second to five minutes. */
export const REACTOR_MAX_ATTEMPTS = 8;
const backoffMs = (failures: number) => Math.min(1000 * 2 ** (failures - 1), 300_000);

interface State {
  checkpoint: string | null;
  failures: number;
}

/**
 * Starts each reactor that has no checkpoint at the head of the log: a process manager added to a running service
 * reacts to what happens from then on, never to history (it would publish, mail or call out again).
 */
export async function placeReactors(db: Kysely<DB>, events: GlobalLog, reactors: readonly Reactor[]): Promise<void> {
  if (reactors.length === 0) return;
  const head = await events.headPosition();
  await db
    .insertInto('reactor_state')
    .values(reactors.map((r) => ({ name: r.name, checkpoint: head })))
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
}

export type FailureOutcome = { parked: true } | { parked: false; failures: number; retryAt: number };

/**
 * Records a failed try of `e` by reactor `r`, whose checkpoint is `s.checkpoint` (just before `e`): the next try waits
 * for the backoff; the last parks the event (kept in reactor_parked with its error, logged) and moves the checkpoint
 * past it, so one event that can never succeed does not stop every later one.
 */
export async function recordFailure(
  db: Kysely<DB>,
  r: Reactor,
  s: State,
  e: StoredEvent,
  err: unknown,
  log: Logger,
): Promise<FailureOutcome> {
  const failures = s.failures + 1;
  const error = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  const where = { reactor: r.name, eventId: e.eventId, type: e.type, stream: e.streamId, failures };
  if (failures < REACTOR_MAX_ATTEMPTS) {
    log.warn({ err, ...where }, 'a reactor failed on an event; it will try again');
    const retryAt = Date.now() + backoffMs(failures);
    await db
      .updateTable('reactor_state')
      .set({ failures, last_error: error, retry_at: new Date(retryAt), updated_at: new Date() })
      .where('name', '=', r.name)
      .where(sql<boolean>`checkpoint is not distinct from ${s.checkpoint}`)
      .execute();
    return { parked: false, failures, retryAt };
  }
  log.error({ err, ...where }, 'a reactor gave up on an event after its retries; it is parked');
  await withSystem(db, async (trx) => {
    await trx
      .insertInto('reactor_parked')
      .values({
        reactor: r.name,
        site_id: e.siteId,
        event_id: e.eventId,
        type: e.type,
        stream_id: e.streamId,
        checkpoint: e.checkpoint,
        error,
      })
      .execute();
    await trx
      .updateTable('reactor_state')
      .set({ checkpoint: e.checkpoint, failures: 0, last_error: null, retry_at: null, updated_at: new Date() })
      .where('name', '=', r.name)
      .where(sql<boolean>`checkpoint is not distinct from ${s.checkpoint}`)
      .execute();
  });
  return { parked: true };
}
