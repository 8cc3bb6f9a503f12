import { sql, type Kysely, type Transaction } from 'kysely';
import type { Logger } from 'pino';
import type { DB } from '../../kernel/db/database.ts';
import { asSystem, scopeTo, SYSTEM_SITE, withSystem } from '../../kernel/tenancy/site.ts';
import type { StoredEvent } from '../../kernel/es/event.ts';
import type { EventStore, GlobalLog, GlobalPosition } from '../../kernel/es/event-store.ts';
import {
  handlesEvent,
  liveTable,
  noInstanceKey,
  type ProjectionContext,
  type Projector,
} from '../../kernel/es/projector.ts';

const BATCH = 500;

class CheckpointMoved extends Error {}

export interface SubscriptionOptions {
  /** The read models' database; checkpoints live there, in `projection_state`, next to the rows. */
  db: Kysely<DB>;
  events: GlobalLog & Pick<EventStore, 'onAppended'>;
  /** The projectors that would run inside appends if the store could share a transaction with them. */
  projectors: readonly Projector[];
  log: Logger;
  /** How often to look for events appended by other nodes (this node's own appends wake it at once). */
  pollMs: number;
  /** What the projectors' `apply` gets (the instance keyring); none configured when left out. */
  context?: ProjectionContext;
}

interface State {
  name: string;
  checkpoint: string | null;
  status: string;
}

/**
 * Runs the inline projectors from the log instead of inside appends: for a store that cannot share a transaction
 * with the read models (EventStoreDB), or the SQL store in the subscription mode. It reads the log after the
 * lowest checkpoint, applies each projector's part of the batch under the event's site, and moves every
 * checkpoint by compare-and-set in the same transaction, so another node doing the same makes this batch roll
 * back, not repeat. `waitFor` lets a write answer once its events are projected (read-your-writes).
 */
export class ProjectionSubscription {
  private reached: GlobalPosition | null = null;
  private waiters = new Set<{ position: GlobalPosition; done: (ok: boolean) => void }>();
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = false;
  private readonly off: () => void;

  constructor(private readonly opts: SubscriptionOptions) {
    this.off = opts.events.onAppended(() => this.kick());
  }

  start(): void {
    this.kick();
  }

  /** Whether every projector has reached `position`; waits for it at most `timeoutMs`. */
  waitFor(position: GlobalPosition, timeoutMs: number): Promise<boolean> {
    if (this.opts.projectors.length === 0 || this.covers(position)) return Promise.resolve(true);
    return new Promise<boolean>((resolve) => {
      const w = {
        position,
        done: (ok: boolean) => {
          clearTimeout(t);
          this.waiters.delete(w);
          resolve(ok);
        },
      };
      const t = setTimeout(() => w.done(false), timeoutMs);
      this.waiters.add(w);
      this.kick();
    });
  }

  /** Projects until a pass finds nothing new (tests, shutdown). */
  async catchUp(): Promise<void> {
    while ((await this.pass()) > 0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.off();
    clearTimeout(this.timer);
    await this.running;
    for (const w of [...this.waiters]) w.done(false);
  }

  private covers(position: GlobalPosition): boolean {
    return this.reached !== null && this.opts.events.comparePositions(this.reached, position) >= 0;
  }

  /** Runs passes until one finds nothing, then sleeps until the next append here or the poll interval. */
  private kick(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    clearTimeout(this.timer);
    this.running = (async () => {
      do {
        this.again = false;
        try {
          while ((await this.pass()) > 0 && !this.stopped);
        } catch (err) {
          this.opts.log.error({ err }, 'projection subscription failed; retrying');
        }
      } while (this.again && !this.stopped);
    })().finally(() => {
      this.running = null;
      if (!this.stopped) this.timer = setTimeout(() => this.kick(), this.opts.pollMs);
    });
  }

  /** One batch for every live projector; the number of events read (0: nothing new is visible). */
  private async pass(careful = false): Promise<number> {
    const names = this.opts.projectors.map((p) => p.name);
    if (names.length === 0) return 0;
    const states = await withSystem(this.opts.db, (trx) =>
      trx.selectFrom('projection_state').select(['name', 'checkpoint', 'status']).where('name', 'in', names).execute(),
    );
    const live = this.opts.projectors
      .map((p) => ({ p, state: states.find((s) => s.name === p.name) }))
      .filter((x): x is { p: Projector; state: State } => x.state?.status === 'live');
    if (live.length === 0) return 0;
    const from = live
      .map((x) => x.state.checkpoint)
      .reduce((a, b) => (this.opts.events.comparePositions(a, b) <= 0 ? a : b));
    const batch = await this.opts.events.readAll({ after: from ?? undefined, limit: BATCH });
    if (batch.length === 0) {
      this.advance(from);
      return 0;
    }
    const last = batch[batch.length - 1]!.checkpoint;
    try {
      await this.opts.db.transaction().execute(async (trx) => {
        for (const { p, state } of live) await this.applyBatch(trx, p, state.checkpoint, batch, last, careful);
      });
    } catch (err) {
      if (err instanceof CheckpointMoved) return batch.length;
      if (!careful && isRefusal(err)) return this.pass(true);
      throw err;
    }
    this.advance(last);
    return batch.length;
  }

  private async applyBatch(
    trx: Transaction<DB>,
    p: Projector,
    checkpoint: string | null,
    batch: StoredEvent[],
    last: GlobalPosition,
    careful: boolean,
  ): Promise<void> {
    for (const e of batch) {
      if (this.opts.events.comparePositions(e.checkpoint, checkpoint) <= 0 || !handlesEvent(p, e.type)) continue;
      if (!careful) {
        await applyOne(trx, p, e, this.opts.context ?? noInstanceKey);
        continue;
      }
      await sql`savepoint projection_event`.execute(trx);
      try {
        await applyOne(trx, p, e, this.opts.context ?? noInstanceKey);
        await sql`release savepoint projection_event`.execute(trx);
      } catch (err) {
        if (!isRefusal(err)) throw err;
        await sql`rollback to savepoint projection_event`.execute(trx);
        // The event is in the log for good: a read model that refuses it must not stop every later event.
        this.opts.log.error(
          { err, projector: p.name, eventId: e.eventId, type: e.type, stream: e.streamId },
          'a projector refused an event; it is skipped',
        );
      }
    }
    await scopeTo(trx, SYSTEM_SITE);
    const moved = await trx
      .updateTable('projection_state')
      .set({ checkpoint: last, updated_at: new Date() })
      .where('name', '=', p.name)
      .where(sql<boolean>`checkpoint is not distinct from ${checkpoint}`)
      .executeTakeFirst();
    if (Number(moved.numUpdatedRows) !== 1) throw new CheckpointMoved();
  }

  private advance(position: GlobalPosition | null): void {
    if (position === null) return;
    if (this.reached === null || this.opts.events.comparePositions(position, this.reached) > 0) this.reached = position;
    for (const w of [...this.waiters]) if (this.covers(w.position)) w.done(true);
  }
}

/** As inside an append: under the event's site, or under `_system` for an instance-wide projector. */
async function applyOne(trx: Transaction<DB>, p: Projector, e: StoredEvent, ctx: ProjectionContext): Promise<void> {
  await scopeTo(trx, e.siteId);
  const apply = () => p.apply(trx, e, liveTable, ctx);
  await (p.instanceWide ? asSystem(trx, apply) : apply());
}

/** PostgreSQL data exceptions (22…) and integrity violations (23…): this event is refused, not the database down. */
export function isRefusal(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' && (code.startsWith('22') || code.startsWith('23'));
}
