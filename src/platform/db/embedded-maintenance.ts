import { sql, type Kysely } from 'kysely';
import type { DB } from '../../kernel/db/database.ts';
import type { StoredEvent } from '../../kernel/es/event.ts';
import type { LoopSpec } from '../leader-loop.ts';

/** Appends since the last round that make the next round vacuum and analyze (autovacuum's 10 % of a busy table, roughly). */
export const MAINTENANCE_AFTER_EVENTS = 1000;

/**
 * What autovacuum does for PostgreSQL, for the embedded database (PGlite runs no background workers): the planner's
 * statistics and the visibility map kept current, so that a list is served by its index instead of sorting a table
 * the planner believes empty, and an index-only scan skips the heap. A round runs `vacuum (analyze)` when enough was
 * appended since the last one (and once at start, for a database opened with none).
 */
export function embeddedMaintenance(
  db: Kysely<DB>,
  appends: { onAppended(listener: (events: readonly StoredEvent[]) => void): () => void },
  intervalMs: number,
): LoopSpec & { stop(): void } {
  let since = MAINTENANCE_AFTER_EVENTS;
  const off = appends.onAppended((events) => {
    since += events.length;
  });
  return {
    name: 'embedded-maintenance',
    intervalMs,
    run: async () => {
      if (since < MAINTENANCE_AFTER_EVENTS) return;
      since = 0;
      await sql`vacuum (analyze)`.execute(db);
    },
    stop: off,
  };
}
