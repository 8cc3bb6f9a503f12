import type { Kysely } from 'kysely';
import type { DB } from '../../kernel/db/database.ts';
import type { StoredEvent } from '../../kernel/es/event.ts';
import { instanceState } from '../../../projections/instance/index.ts';
import type { StudioEvent } from '../../contracts/studio/studio.events.ts';

/** How long another node's change may go unseen here: the instance row is read again at most this often. */
export const ADMIN_PATH_RECHECK_MS = 1000;

/**
 * The admin path every request asks for (null before setup completes), read from the instance read model. This
 * node's own changes apply the moment they commit (store.onAppended: an `AdminPathChanged` sets the new path from
 * the event itself, so the old path is the generic 404 at once even where the read model follows the log later);
 * another node's change is seen by the next read of the row, at most `recheckMs` later. A read begun before an
 * invalidation never overwrites what the invalidation decided.
 */
export class AdminPathCache {
  private value: { path: string | null; until: number } | null = null;
  private generation = 0;
  private flight: Promise<string | null> | null = null;

  constructor(
    private readonly db: Kysely<DB>,
    private readonly opts: { recheckMs?: number; now?: () => number } = {},
  ) {}

  private now(): number {
    return this.opts.now ? this.opts.now() : Date.now();
  }

  async current(): Promise<string | null> {
    if (this.value && this.value.until > this.now()) return this.value.path;
    if (this.flight) return this.flight;
    const generation = this.generation;
    const flight = instanceState(this.db)
      .then(({ setupComplete, adminPath }) => {
        const path = setupComplete ? adminPath : null;
        if (this.generation === generation) this.keep(path);
        return path;
      })
      .finally(() => {
        if (this.flight === flight) this.flight = null;
      });
    this.flight = flight;
    return flight;
  }

  /** This node's committed events: setup and path changes invalidate (a change also says the new path). */
  onAppended(events: readonly StoredEvent[]): void {
    for (const e of events) {
      if (e.type === 'AdminPathChanged') {
        this.invalidate();
        this.keep((e as StoredEvent<StudioEvent>).data.to);
      } else if (e.type === 'SetupStarted' || e.type === 'SetupCompleted') this.invalidate();
    }
  }

  private invalidate(): void {
    this.generation++;
    this.flight = null;
    this.value = null;
  }

  private keep(path: string | null): void {
    this.value = { path, until: this.now() + (this.opts.recheckMs ?? ADMIN_PATH_RECHECK_MS) };
  }
}
