import { sql, type Kysely } from 'kysely';
import type { LockSession } from '../../kernel/db/leader-lock.ts';
import type { Logger } from 'pino';
import { LeaderLock } from '../../kernel/db/leader-lock.ts';
import type { DB } from '../../kernel/db/database.ts';
import { withSystem } from '../../kernel/tenancy/site.ts';
import type { StoredEvent } from '../../kernel/es/event.ts';
import type { GlobalLog } from '../../kernel/es/event-store.ts';
import type { Reactor } from '../../kernel/es/reactor.ts';

/** Events looked at per step of a reactor (only those it handles are read in full). */
const SCAN = 500;
/** Tries of one event before it is parked; the waits between them double from one second to five minutes. */
export const REACTOR_MAX_ATTEMPTS = 8;
const backoffMs = (failures: number) => Math.min(1000 * 2 ** (failures - 1), 300_000);

interface State {
  checkpoint: string | null;
  failures: number;
  retry_at: Date | null;
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

/**
 * reactor_state is instance-wide and has no site_id (no row-level security, like projection_state): its queries are
 * single statements, not transactions under `_system`, because the runner asks them several times a second.
 */
const stateOf = (db: Kysely<DB>, name: string): Promise<State | undefined> =>
  db
    .selectFrom('reactor_state')
    .select(['checkpoint', 'failures', 'retry_at'])
    .where('name', '=', name)
    .executeTakeFirst();

/** Moves the checkpoint from `from` to `to` (compare-and-set, failures cleared); false when another worker moved it. */
async function advance(db: Kysely<DB>, name: string, from: string | null, to: string): Promise<boolean> {
  const r = await db
    .updateTable('reactor_state')
    .set({ checkpoint: to, failures: 0, last_error: null, retry_at: null, updated_at: new Date() })
    .where('name', '=', name)
    .where(sql<boolean>`checkpoint is not distinct from ${from}`)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/**
 * Records a failed try of `e`: the next waits for the backoff; the last parks the event (kept in reactor_parked
 * with its error, logged) and moves past it, so one event that can never succeed does not stop every later one.
 */
async function fail(
  db: Kysely<DB>,
  r: Reactor,
  s: State,
  e: StoredEvent,
  err: unknown,
  log: Logger,
): Promise<'retry' | 'parked'> {
  const failures = s.failures + 1;
  const error = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  const where = { reactor: r.name, eventId: e.eventId, type: e.type, stream: e.streamId, failures };
  if (failures < REACTOR_MAX_ATTEMPTS) {
    log.warn({ err, ...where }, 'a reactor failed on an event; it will try again');
    await db
      .updateTable('reactor_state')
      .set({
        failures,
        last_error: error,
        retry_at: new Date(Date.now() + backoffMs(failures)),
        updated_at: new Date(),
      })
      .where('name', '=', r.name)
      .where(sql<boolean>`checkpoint is not distinct from ${s.checkpoint}`)
      .execute();
    return 'retry';
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
  });
  await advance(db, r.name, s.checkpoint, e.checkpoint);
  return 'parked';
}

export type ReactOutcome = { read: number; blocked: boolean };

/**
 * Feeds one batch of the log to a reactor: each event it handles, then its checkpoint, one by one (so a crash
 * repeats at most the event in hand). Stops at a failure (blocked until its retry time) or when another worker
 * moved the checkpoint.
 */
export async function reactOnce(db: Kysely<DB>, events: GlobalLog, r: Reactor, log: Logger): Promise<ReactOutcome> {
  let s = await stateOf(db, r.name);
  if (!s) return { read: 0, blocked: false };
  if (s.retry_at && s.retry_at.getTime() > Date.now()) return { read: 0, blocked: true };
  // Only the events the reactor handles are read in full; the others are passed over by position.
  const scan = await events.scanAll({
    ...(s.checkpoint ? { after: s.checkpoint } : {}),
    limit: SCAN,
    types: r.handles,
  });
  for (const e of scan.events) {
    try {
      await r.handle(e);
    } catch (err) {
      // Parked: the checkpoint moved past it, and the next call goes on from there.
      return { read: scan.scanned, blocked: (await fail(db, r, s, e, err, log)) === 'retry' };
    }
    if (!(await advance(db, r.name, s.checkpoint, e.checkpoint))) return { read: scan.scanned, blocked: false };
    s = { ...s, checkpoint: e.checkpoint, failures: 0 };
  }
  if (scan.through && scan.through !== s.checkpoint) await advance(db, r.name, s.checkpoint, scan.through);
  return { read: scan.scanned, blocked: false };
}

export interface ReactorRunnerOptions {
  db: Kysely<DB>;
  events: GlobalLog;
  /** The node's lock session for the leader lock (PostgreSQL); null on PGlite (one process owns the data directory). */
  locks: LockSession | null;
  reactors: readonly Reactor[];
  log: Logger;
  pollMs?: number;
  /** False: no timer; the reactors run only when drained (tests, and nodes that serve requests only). */
  poll?: boolean;
}

export interface ReactorRunner {
  /** Runs the reactors (all, or the named one) over every event committed before the call; a failing one stops. */
  drain(name?: string): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Runs the reactors while this node holds their leader lock, so any number of nodes may run and exactly one
 * reacts; on one node, ticks and drains queue behind each other, so no event is handled twice at once.
 */
export function startReactors(opts: ReactorRunnerOptions): ReactorRunner {
  const pollMs = opts.pollMs ?? 200;
  const lock = new LeaderLock(opts.locks, ':reactors');
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> = Promise.resolve();
  const serial = <T>(work: () => Promise<T>): Promise<T> => {
    const next = running.then(work, work);
    running = next.catch(() => undefined);
    return next;
  };

  const catchUp = async (reactors: readonly Reactor[], target: string | null): Promise<void> => {
    if (!(await lock.acquire())) return;
    for (const r of reactors) {
      for (let i = 0; i < 1500; i++) {
        const { read, blocked } = await reactOnce(opts.db, opts.events, r, opts.log);
        if (blocked) break;
        if (read > 0) continue;
        // "Nothing to read" can mean "held back by an append still open": wait for what was committed before.
        const s = await stateOf(opts.db, r.name);
        if (!s || target === null || opts.events.comparePositions(s.checkpoint, target) >= 0) break;
        await new Promise((res) => setTimeout(res, 20));
      }
    }
  };

  const tick = (): void => {
    if (stopped) return;
    void serial(() => catchUp(opts.reactors, null))
      .catch(async (err) => {
        opts.log.error({ err }, 'reactors failed; retrying');
        await lock.reset();
      })
      .finally(() => {
        if (!stopped) timer = setTimeout(tick, pollMs);
      });
  };
  if (opts.poll !== false && opts.reactors.length > 0) tick();

  return {
    drain: async (name) => {
      const target = await opts.events.headPosition();
      const which = name === undefined ? opts.reactors : opts.reactors.filter((r) => r.name === name);
      await serial(() => catchUp(which, target));
    },
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await running;
      await lock.release();
    },
  };
}
