import { sql, type Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { DB } from '../../kernel/db/database.ts';
import { LeaderLock, type LockSession } from '../../kernel/db/leader-lock.ts';
import type { StoredEvent } from '../../kernel/es/event.ts';
import type { EventStore, GlobalLog, GlobalPosition } from '../../kernel/es/event-store.ts';
import {
  handlesEvent,
  liveTable,
  noInstanceKey,
  SITE_DELETED,
  type ProjectionContext,
  type Projector,
} from '../../kernel/es/projector.ts';
import type { Reactor } from '../../kernel/es/reactor.ts';
import { withSystem } from '../../kernel/tenancy/site.ts';
import { applyAll } from './projection-engine.ts';
import { recordFailure } from './reactor-state.ts';

/** Events looked at per pass (only those some consumer handles are read in full). */
const SCAN = 500;

interface ReactorState {
  checkpoint: string | null;
  failures: number;
  retryAt: number | null;
}

/** One consumer's part of a pass: where it was, where it got, and whether it stopped at a failure. */
interface Progress {
  from: string | null;
  reached: string | null;
  stopped: boolean;
}

export interface LogFeedOptions {
  /** Checkpoints live there (`reactor_state`, `projection_state`), next to the async read models. */
  db: Kysely<DB>;
  /** The log itself (never waiting on projections); its appends on this node wake the feed. */
  events: GlobalLog & Pick<EventStore, 'onAppended'>;
  /** The node's lock session for the leader lock (PostgreSQL); null on PGlite (one process owns the data directory). */
  locks: LockSession | null;
  reactors: readonly Reactor[];
  /** The async projectors: their rows and checkpoints commit together, so a batch is applied once. */
  projectors: readonly Projector[];
  log: Logger;
  context?: ProjectionContext;
  /**
   * False: the feed runs only when drained (tests, and nodes that serve requests only). True: it runs after each
   * append on this node (`debounceMs` later, so a burst of writes is one read of the log), when another node says
   * it appended, and every `sweepMs` whatever happens.
   */
  active: boolean;
  debounceMs?: number;
  sweepMs?: number;
  /** Other nodes' appends: `subscribe(wake)` calls `wake` when one appended; `poke()` tells them of ours. */
  nodes?: { subscribe(wake: () => void): () => void; poke(): void };
}

export interface LogFeed {
  /** Runs the consumers (all, or the named reactor) over every event committed before the call. */
  drain(name?: string): Promise<void>;
  /** Runs the async projectors alone over every event committed before the call. */
  drainProjections(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * One reader of the log for every reactor and async projector: each pass reads the next events once (from the
 * lowest checkpoint, in full only those some consumer handles), hands each to every consumer that declares its
 * type, applies the async projectors' part in one transaction, and writes every checkpoint in one statement. While
 * nothing is appended nothing is read but a sweep every `sweepMs` (another node's append it was not told of, a
 * retry that came due). Any number of nodes may run it: the one that holds the leader lock reads.
 */
export function startLogFeed(opts: LogFeedOptions): LogFeed {
  return new Feed(opts).start();
}

class Feed implements LogFeed {
  private readonly lock: LeaderLock;
  private readonly reactorStates = new Map<string, ReactorState>();
  private readonly projectionStates = new Map<string, string | null>();
  private statesLoaded = false;
  private running: Promise<unknown> = Promise.resolve();
  private scheduled: NodeJS.Timeout | undefined;
  private sweep: NodeJS.Timeout | undefined;
  private stopped = false;
  /** Whether the next wake asks for the leader lock whenever it last asked (at start, at each sweep). */
  private asks = true;
  private askedAt = 0;
  /** The furthest position appended on this node that a pass has not yet been seen to cover. */
  private wanted: GlobalPosition | null = null;
  private readonly offs: (() => void)[] = [];

  constructor(private readonly opts: LogFeedOptions) {
    this.lock = new LeaderLock(opts.locks, ':log-feed');
  }

  private get consumers(): number {
    return this.opts.reactors.length + this.opts.projectors.length;
  }

  start(): this {
    if (!this.opts.active || this.consumers === 0) return this;
    this.offs.push(
      this.opts.events.onAppended((events) => {
        const last = events.at(-1)?.checkpoint;
        if (last && this.opts.events.comparePositions(last, this.wanted) > 0) this.wanted = last;
        this.schedule(this.opts.debounceMs ?? 20);
      }),
    );
    // Another node appended: only the node that leads has work (the others try the lock at their sweep).
    if (this.opts.nodes)
      this.offs.push(this.opts.nodes.subscribe(() => this.lock.held() && this.schedule(this.opts.debounceMs ?? 20)));
    this.schedule(0);
    return this;
  }

  drain = async (name?: string): Promise<void> => {
    const target = await this.opts.events.headPosition();
    const reactors = name === undefined ? this.opts.reactors : this.opts.reactors.filter((r) => r.name === name);
    const projectors = name === undefined ? this.opts.projectors : [];
    await this.serial(() => this.catchUp(reactors, projectors, target, true));
  };

  drainProjections = async (): Promise<void> => {
    const target = await this.opts.events.headPosition();
    await this.serial(() => this.catchUp([], this.opts.projectors, target, true));
  };

  stop = async (): Promise<void> => {
    this.stopped = true;
    for (const off of this.offs) off();
    clearTimeout(this.scheduled);
    clearTimeout(this.sweep);
    await this.running;
    await this.lock.release();
  };

  /** Passes queue behind each other on this node, so no event is handed to a consumer twice at once. */
  private serial<T>(work: () => Promise<T>): Promise<T> {
    const next = this.running.then(work, work);
    this.running = next.catch(() => undefined);
    return next;
  }

  private schedule(ms: number): void {
    if (this.stopped || this.scheduled) return;
    clearTimeout(this.sweep);
    this.scheduled = setTimeout(() => {
      this.scheduled = undefined;
      void this.serial(() => this.wake()).finally(() => this.afterWake());
    }, ms);
  }

  private afterWake(): void {
    if (this.stopped || this.scheduled) return;
    clearTimeout(this.sweep);
    this.sweep = setTimeout(() => {
      this.asks = true;
      this.schedule(0);
    }, this.opts.sweepMs ?? 30_000);
  }

  /** One wake: passes until the log is read through (or a consumer waits for its retry time). */
  private async wake(): Promise<void> {
    try {
      // A node that does not lead asks for the lock at most once a second (and at each sweep), not at each append.
      const held = this.lock.held();
      const asks = held || this.asks || Date.now() - this.askedAt >= 1000;
      this.asks = false;
      if (!held && asks) this.askedAt = Date.now();
      if (!asks || !(await this.lead())) {
        // Another node reads the log: tell it of this node's appends.
        if (this.wanted !== null) this.opts.nodes?.poke();
        this.wanted = null;
        return;
      }
      const target = this.wanted;
      await this.catchUp(this.opts.reactors, this.opts.projectors, target, false);
      if (target !== null && this.wanted === target) this.wanted = null;
      const due = this.nextRetry();
      if (due !== null) this.scheduleAt(due);
    } catch (err) {
      this.opts.log.error({ err }, 'the log feed failed; retrying');
      this.statesLoaded = false;
      this.asks = true;
      await this.lock.reset();
      this.scheduleAt(Date.now() + 1000);
    }
  }

  /** Takes (or keeps) the leader lock; false when another node leads. */
  private async lead(): Promise<boolean> {
    const led = this.lock.held();
    if (!(await this.lock.acquire())) return false;
    // Leading again: events went by while another node led, so what the reactors keep in memory may be stale.
    if (!led) for (const r of this.opts.reactors) r.reset?.();
    return true;
  }

  private scheduleAt(at: number): void {
    if (this.stopped) return;
    const ms = Math.max(0, at - Date.now());
    if (ms > (this.opts.sweepMs ?? 30_000)) return;
    if (this.scheduled) return;
    setTimeout(() => this.schedule(0), ms).unref();
  }

  private nextRetry(): number | null {
    let due: number | null = null;
    for (const s of this.reactorStates.values())
      if (s.retryAt !== null && (due === null || s.retryAt < due)) due = s.retryAt;
    return due;
  }

  /**
   * Passes until every consumer reached `target` (or stopped at a failure). The global reader holds back events
   * newer than the oldest open transaction, so "nothing read" can mean "not yet visible": up to 30 s are given to
   * such a transaction.
   */
  private async catchUp(
    reactors: readonly Reactor[],
    projectors: readonly Projector[],
    target: GlobalPosition | null,
    reload: boolean,
  ): Promise<void> {
    if (reactors.length + projectors.length === 0) return;
    if (!(await this.lead())) return;
    if (reload) this.statesLoaded = false;
    for (let i = 0; i < 1500; i++) {
      if (!this.statesLoaded) await this.loadStates();
      const { more, behind } = await this.pass(reactors, projectors, target);
      if (more) continue;
      if (!behind) return;
      await new Promise((res) => setTimeout(res, 20));
    }
  }

  private async loadStates(): Promise<void> {
    const names = this.opts.reactors.map((r) => r.name);
    const projections = this.opts.projectors.map((p) => p.name);
    const [reactorRows, projectionRows] = await Promise.all([
      names.length
        ? this.opts.db
            .selectFrom('reactor_state')
            .select(['name', 'checkpoint', 'failures', 'retry_at'])
            .where('name', 'in', names)
            .execute()
        : [],
      projections.length
        ? this.opts.db
            .selectFrom('projection_state')
            .select(['name', 'checkpoint', 'status'])
            .where('name', 'in', projections)
            .execute()
        : [],
    ]);
    this.reactorStates.clear();
    for (const r of reactorRows)
      this.reactorStates.set(r.name, {
        checkpoint: r.checkpoint,
        failures: r.failures,
        retryAt: r.retry_at ? r.retry_at.getTime() : null,
      });
    this.projectionStates.clear();
    for (const p of projectionRows) if (p.status === 'live') this.projectionStates.set(p.name, p.checkpoint);
    this.statesLoaded = true;
  }

  /** One batch of the log for the consumers that may go on now; `behind`: one of them has not reached `target`. */
  private async pass(
    reactors: readonly Reactor[],
    projectors: readonly Projector[],
    target: GlobalPosition | null,
  ): Promise<{ more: boolean; behind: boolean }> {
    const cmp = (a: string | null, b: string | null) => this.opts.events.comparePositions(a, b);
    const now = Date.now();
    const ready = reactors.filter((r) => {
      const s = this.reactorStates.get(r.name);
      return s !== undefined && (s.retryAt === null || s.retryAt <= now);
    });
    const live = projectors.filter((p) => this.projectionStates.has(p.name));
    const positions = () => [
      ...ready.map((r) => this.reactorStates.get(r.name)!.checkpoint),
      ...live.map((p) => this.projectionStates.get(p.name)!),
    ];
    const isBehind = () => target !== null && positions().some((p) => cmp(p, target) < 0);
    if (positions().length === 0) return { more: false, behind: false };
    const from = positions().reduce((a, b) => (cmp(a, b) <= 0 ? a : b));
    const scan = await this.opts.events.scanAll({
      ...(from ? { after: from } : {}),
      limit: SCAN,
      types: live.some((p) => p.handles === '*') ? '*' : consumedTypes(ready, live),
    });
    if (scan.scanned === 0 || scan.through === null) return { more: false, behind: isBehind() };
    const through = scan.through;
    const progress = new Map<string, Progress>();
    for (const r of ready) {
      const at = this.reactorStates.get(r.name)!.checkpoint;
      progress.set(r.name, { from: at, reached: at, stopped: false });
    }
    for (const e of scan.events) for (const r of ready) await this.handOver(r, e, progress.get(r.name)!);
    for (const p of progress.values()) if (!p.stopped && cmp(through, p.reached) > 0) p.reached = through;
    await this.commit(ready, live, scan.events, progress, through);
    return { more: scan.scanned === SCAN || !this.statesLoaded, behind: isBehind() };
  }

  /** Hands `e` to reactor `r` unless it was past it or stopped; a failure stops it there (or parks the event). */
  private async handOver(r: Reactor, e: StoredEvent, at: Progress): Promise<void> {
    if (at.stopped || this.opts.events.comparePositions(e.checkpoint, at.reached) <= 0) return;
    if (!r.handles.includes(e.type)) return;
    try {
      await r.handle(e);
      at.reached = e.checkpoint;
    } catch (err) {
      // The checkpoint first moves over what was handled before `e`, then the failure is recorded against it.
      await this.moveReactors([{ name: r.name, ...at }]);
      at.from = at.reached;
      const state = this.reactorStates.get(r.name)!;
      const outcome = await recordFailure(this.opts.db, r, { ...state, checkpoint: at.reached }, e, err, this.opts.log);
      if (outcome.parked) {
        at.reached = e.checkpoint;
        at.from = e.checkpoint;
        this.reactorStates.set(r.name, { checkpoint: e.checkpoint, failures: 0, retryAt: null });
        return;
      }
      at.stopped = true;
      this.reactorStates.set(r.name, { checkpoint: at.reached, failures: outcome.failures, retryAt: outcome.retryAt });
    }
  }

  /**
   * The async projectors' part of the batch and every checkpoint that moved, in one transaction when a projector has
   * rows to write, else in one statement. A checkpoint another worker moved rolls the batch back.
   */
  private async commit(
    reactors: readonly Reactor[],
    projectors: readonly Projector[],
    events: readonly StoredEvent[],
    progress: Map<string, Progress>,
    through: string,
  ): Promise<void> {
    const cmp = (a: string | null, b: string | null) => this.opts.events.comparePositions(a, b);
    const moved = reactors
      .map((r) => ({ name: r.name, ...progress.get(r.name)! }))
      .filter((m) => cmp(m.reached, m.from) > 0);
    const projected = projectors.map((p) => ({
      p,
      from: this.projectionStates.get(p.name)!,
      events: events.filter(
        (e) => handlesEvent(p, e.type) && cmp(e.checkpoint, this.projectionStates.get(p.name)!) > 0,
      ),
    }));
    const withRows = projected.filter((x) => x.events.length > 0);
    const checkpoints = projected.map((x) => ({ name: x.p.name, from: x.from, reached: through }));
    try {
      if (withRows.length === 0) await this.moveAll(this.opts.db, moved, checkpoints);
      else
        await withSystem(this.opts.db, async (trx) => {
          const ctx = this.opts.context ?? noInstanceKey;
          for (const x of withRows) await applyAll(trx, x.p, x.events, liveTable, ctx);
          await this.moveAll(trx, moved, checkpoints);
        });
    } catch (err) {
      this.statesLoaded = false;
      if (err instanceof CheckpointMoved) return;
      throw err;
    }
    for (const m of moved) {
      const s = this.reactorStates.get(m.name)!;
      if (!m.stopped) this.reactorStates.set(m.name, { checkpoint: m.reached, failures: 0, retryAt: null });
      else s.checkpoint = m.reached;
    }
    for (const x of projected) this.projectionStates.set(x.p.name, through);
  }

  private async moveReactors(moved: { name: string; from: string | null; reached: string | null }[]): Promise<void> {
    if (moved.every((m) => m.from === m.reached)) return;
    try {
      await this.moveAll(this.opts.db, moved, []);
    } catch (err) {
      this.statesLoaded = false;
      if (!(err instanceof CheckpointMoved)) throw err;
    }
  }

  /** Every checkpoint in one statement, each by compare-and-set; throws CheckpointMoved when one had moved. */
  private async moveAll(
    db: Kysely<DB>,
    reactors: readonly { name: string; from: string | null; reached: string | null }[],
    projections: readonly { name: string; from: string | null; reached: string | null }[],
  ): Promise<void> {
    const r = reactors.filter((m) => m.from !== m.reached);
    const p = projections.filter((m) => m.from !== m.reached);
    if (r.length + p.length === 0) return;
    const col = (
      xs: readonly { name: string; from: string | null; reached: string | null }[],
      k: 'name' | 'from' | 'reached',
    ) => xs.map((x) => x[k]);
    const { rows } = await sql<{ r: number; p: number }>`
      with rv as (
        select * from unnest(${col(r, 'name')}::text[], ${col(r, 'from')}::text[], ${col(r, 'reached')}::text[])
          as v(name, prev, next)
      ), pv as (
        select * from unnest(${col(p, 'name')}::text[], ${col(p, 'from')}::text[], ${col(p, 'reached')}::text[])
          as v(name, prev, next)
      ), ru as (
        update reactor_state s set checkpoint = rv.next, failures = 0, last_error = null, retry_at = null,
          updated_at = now()
        from rv where s.name = rv.name and s.checkpoint is not distinct from rv.prev
        returning s.name
      ), pu as (
        update projection_state s set checkpoint = pv.next, updated_at = now()
        from pv where s.name = pv.name and s.checkpoint is not distinct from pv.prev and s.status = 'live'
        returning s.name
      )
      select (select count(*) from ru)::int as r, (select count(*) from pu)::int as p`.execute(db);
    if (rows[0]!.r !== r.length || rows[0]!.p !== p.length) throw new CheckpointMoved();
  }
}

class CheckpointMoved extends Error {}

/** The types some consumer reads (a projector also reads its sites' deletions). */
function consumedTypes(reactors: readonly Reactor[], projectors: readonly Projector[]): string[] {
  const types = new Set<string>(reactors.flatMap((r) => r.handles));
  for (const p of projectors) for (const t of p.handles === '*' ? [] : p.handles) types.add(t);
  if (projectors.some((p) => handlesEvent(p, SITE_DELETED))) types.add(SITE_DELETED);
  return [...types];
}
