import { randomUUID } from 'node:crypto';
import type { AppDeps } from '../../deps.ts';
import type { Principal } from '../../kernel/http/access.ts';
import { DomainError } from '../../kernel/http/errors.ts';
import type { RealtimeClient, RelayFrame } from '../../platform/realtime/hub.ts';
import { roleOn } from '../../kernel/auth/actor.ts';
import { previewBaseOf } from '../../kernel/tenancy/site.ts';
import { userActor } from '../auth/index.ts';
import { findUserForToken } from '../../../projections/users/index.ts';
import type { LiveQuery } from '../items/index.ts';
import { inboxViewer, receives, type Standing } from '../notifications/index.ts';
import type { Recipient } from '../../contracts/notifications/notifications.events.ts';
import type { ItemFrameData } from '../items/index.ts';
import type { NotificationFrameData } from '../notifications/index.ts';
import { ITEM_EVENTS, type ItemEventName, type LiveSubscription, type ServerFrame } from './realtime.protocol.ts';
import type { TicketHolder } from './realtime.tickets.ts';

/** Where a connection's frames go: an SSE response or a WebSocket. `close` ends it from the server's side. */
export interface Sink {
  send(frame: ServerFrame): void;
  close(): void;
}

/** Item ids a subscription remembers having sent (to tell the client when one leaves its filter or rights). */
const MAX_SEEN = 2_000;
/** Batches a connection may have waiting (its reads slower than the changes): beyond, it is closed as too slow. */
const MAX_BACKLOG = 500;
/** Waits for an append still open before the replay's end (the log holds later events back until it commits). */
const REPLAY_WAITS = 50;
const INT8_MAX = 9223372036854775807n;

/** Whether `id` is a frame id this service hands out: a log position, two integers within PostgreSQL's bigint. */
export function isFrameId(id: string): boolean {
  const m = /^(\d{1,19}):(\d{1,19})$/.exec(id);
  return !!m && BigInt(m[1]!) <= INT8_MAX && BigInt(m[2]!) <= INT8_MAX;
}

/** At most `size` holders at once; the others wait their turn (replays read the log: a node runs a few at a time). */
export class Semaphore {
  private free: number;
  private readonly waiting: (() => void)[] = [];
  constructor(size: number) {
    this.free = size;
  }
  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.free > 0) this.free--;
    else await new Promise<void>((r) => this.waiting.push(r));
    try {
      return await work();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.free++;
    }
  }
}

interface Subscription {
  id: string;
  collection: string;
  query: LiveQuery;
  events: ReadonlySet<ItemEventName>;
  /** Ids sent to the client and not yet deleted or left. */
  seen: Set<string>;
}

/** The connection's user as their requests would carry them now, or null when the access is gone. */
interface Who {
  principal: Principal;
  standing: Standing;
}

type Memo = Map<string, Promise<unknown>>;

const memoized = <T>(memo: Memo, key: string, make: () => Promise<T>): Promise<T> => {
  let p = memo.get(key) as Promise<T> | undefined;
  if (!p) memo.set(key, (p = make()));
  return p;
};

/**
 * One realtime connection of one user on one site. Frames arrive from the relay in log order and are handled one
 * batch at a time, in order: for each batch the user's access is looked up again (an account disabled, a session
 * revoked or a token version moved ends the connection), notifications go to their recipients as the inbox shows
 * them, and item changes are read as this user (rows and fields by their rights now, and the subscription's
 * filter), batched by subscription and shared with every alike connection of the node through `memo`.
 */
export class Connection implements RealtimeClient {
  readonly id = randomUUID();
  readonly siteId: string;
  private readonly subs = new Map<string, Subscription>();
  private chain: Promise<void> = Promise.resolve();
  /** Batches that arrive while the connection replays; handled after it. */
  private pending: (readonly RelayFrame[])[] | null = [];
  /** The last log position handled: later frames at or before it are not sent again. */
  private upTo: string | null = null;
  private leave: (() => void) | null = null;
  private sent = 0;
  private backlog = 0;
  closed = false;

  constructor(
    private readonly deps: AppDeps,
    private readonly holder: TicketHolder,
    private readonly sink: Sink,
    /** `maxReplay`: log events a replay reads at most before it tells the client to reload instead (`reset`). */
    private readonly limits: { maxSubscriptions: number; maxReplay: number; replays: Semaphore },
  ) {
    this.siteId = holder.siteId;
  }

  /**
   * Joins the site's room, adds the subscriptions given at connection, replays what the client missed after
   * `lastEventId` from the log (the frames it would have had, each decided as now), says `ready`, then goes live.
   */
  start(lastEventId: string | null, initial: readonly LiveSubscription[]): Promise<void> {
    this.leave = this.deps.realtime.hub.join(this);
    return this.enqueue(async () => {
      const memo: Memo = new Map();
      const who = await this.who(memo);
      if (!who) return this.end('access_revoked');
      for (const s of initial) await this.subscribe(s, who);
      const until = await this.deps.realtime.relay.ready();
      const replayed = lastEventId && until ? await this.limits.replays.run(() => this.replay(lastEventId, until)) : 0;
      if (!lastEventId) this.upTo = until;
      this.sink.send({ type: 'ready', id: null, data: { connectionId: this.id, siteId: this.siteId, replayed } });
      const waiting = this.pending ?? [];
      this.pending = null;
      for (const frames of waiting) {
        this.backlog--;
        await this.handle(frames, new Map());
      }
    });
  }

  receive(frames: readonly RelayFrame[], memo: Memo): void {
    if (this.closed) return;
    if (++this.backlog > MAX_BACKLOG) return this.end('too_slow');
    if (this.pending) this.pending.push(frames);
    else
      void this.enqueue(async () => {
        this.backlog--;
        await this.handle(frames, memo);
      });
  }

  /** Looks the user's access up again (a quiet site sends no frames that would): ends the connection if it is gone. */
  recheck(): Promise<void> {
    return this.enqueue(async () => {
      if (!(await this.who(new Map()))) this.end('access_revoked');
    });
  }

  /** A client's `subscribe` message: checked as the list route would check the query, then live. */
  addSubscription(s: LiveSubscription): Promise<void> {
    return this.enqueue(async () => {
      const who = await this.who(new Map());
      if (!who) return this.end('access_revoked');
      await this.subscribe(s, who);
    });
  }

  removeSubscription(id: string): Promise<void> {
    return this.enqueue(async () => {
      const had = this.subs.delete(id);
      if (had) this.sink.send({ type: 'unsubscribed', id: null, data: { id } });
      else this.error('NOT_FOUND', `no subscription ${id} on this connection`, id);
    });
  }

  pong(): void {
    this.sink.send({ type: 'pong', id: null, data: null });
  }

  /** The server ends the connection, saying why. */
  end(reason: string): void {
    if (this.closed) return;
    this.sink.send({ type: 'closed', id: null, data: { reason } });
    this.dispose();
    this.sink.close();
  }

  /** The client went away (or `end`): out of the room, nothing more is sent. */
  dispose(): void {
    this.closed = true;
    this.leave?.();
    this.leave = null;
    this.subs.clear();
    this.pending = null;
  }

  private send(frame: ServerFrame): void {
    if (this.closed) return;
    this.sent++;
    this.sink.send(frame);
  }

  private error(code: string, message: string, subscription?: string): void {
    this.send({ type: 'error', id: null, data: { code, message, ...(subscription ? { subscription } : {}) } });
  }

  private enqueue(work: () => Promise<void>): Promise<void> {
    this.chain = this.chain.then(async () => {
      if (!this.closed) await work();
    });
    this.chain = this.chain.catch(() => this.end('internal_error'));
    return this.chain;
  }

  private async subscribe(s: LiveSubscription, who: Who): Promise<void> {
    const max = this.limits.maxSubscriptions;
    if (!this.subs.has(s.id) && this.subs.size >= max)
      return this.error('VALIDATION_FAILED', `at most ${max} subscriptions per connection`, s.id);
    const query: LiveQuery = { filter: s.query?.filter ?? null, fields: s.query?.fields ?? null };
    try {
      await this.deps.items.read.checkLive(who.principal, s.collection, query);
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      return this.error(err.code, err.message, s.id);
    }
    const events = new Set(s.events ?? ITEM_EVENTS);
    this.subs.set(s.id, { id: s.id, collection: s.collection, query, events, seen: new Set() });
    this.sink.send({ type: 'subscribed', id: null, data: { id: s.id } });
  }

  /** Reads the log after `from` up to `until` and handles its frames; `reset` when that is too far back. */
  private async replay(from: string, until: string): Promise<number> {
    const { store, realtime } = this.deps;
    const before = this.sent;
    let after = from;
    let scanned = 0;
    let waits = 0;
    while (store.comparePositions(after, until) < 0) {
      if (scanned >= this.limits.maxReplay) {
        this.send({ type: 'reset', id: null, data: { reason: 'too_far_behind' } });
        this.upTo = until;
        return this.sent - before;
      }
      const batch = await store.readAll({ after, limit: Math.min(500, this.limits.maxReplay) });
      if (batch.length === 0) {
        // An append still open holds the log back: wait for it, or leave the rest to the live frames.
        if (++waits > REPLAY_WAITS) break;
        await new Promise((r) => setTimeout(r, 20));
        continue;
      }
      scanned += batch.length;
      const upto = batch.filter((e) => e.siteId === this.siteId && store.comparePositions(e.checkpoint, until) <= 0);
      await this.handle(realtime.relay.framesOf(upto), new Map());
      after = batch[batch.length - 1]!.checkpoint;
    }
    // Live frames after the last position replayed are still to come: only what was read counts as handled.
    const reached = store.comparePositions(after, until) < 0 ? after : until;
    if (this.upTo === null || store.comparePositions(this.upTo, reached) < 0) this.upTo = reached;
    return this.sent - before;
  }

  /** The user behind the ticket as a request of theirs would carry them now (shared by their connections). */
  private who(memo: Memo): Promise<Who | null> {
    const h = this.holder;
    const key = `who\u0000${h.siteId}\u0000${h.userId}\u0000${h.sessionId}\u0000${h.tokenVersion}\u0000${h.amr.join(',')}`;
    return memoized(memo, key, async () => {
      const user = await findUserForToken(this.deps.db, h.userId, h.sessionId);
      if (!user || !user.sessionLive || user.status !== 'active' || user.tokenVersion !== h.tokenVersion) return null;
      if (!roleOn({ type: 'user', instanceAdmin: user.instanceAdmin, roles: user.roles }, h.siteId)) return null;
      // Its roles on the ticket's site only (and, on a preview, its base's, which `roleOn` reads): the connection is
      // bound to it.
      const base = previewBaseOf(h.siteId);
      const actor = userActor(user, {
        sessionId: h.sessionId,
        amr: h.amr,
        sites: (site) => site === h.siteId || site === base,
      });
      const principal: Principal = { actor, site: { id: h.siteId } };
      return { principal, standing: await inboxViewer(this.deps, principal) };
    });
  }

  private async handle(frames: readonly RelayFrame[], memo: Memo): Promise<void> {
    const { store } = this.deps;
    const fresh = frames.filter(
      (f) => f.checkpoint === null || this.upTo === null || store.comparePositions(f.checkpoint, this.upTo) > 0,
    );
    if (fresh.length === 0) return;
    // Nothing for this connection in the batch (changes of collections it does not follow): no lookup at all.
    const relevant = fresh.some(
      (f) => f.type === 'notification' || (isItemFrame(f) && this.follows(f.data.collection)),
    );
    if (!relevant) {
      for (const f of fresh) if (f.checkpoint) this.upTo = f.checkpoint;
      return;
    }
    const who = await this.who(memo);
    if (!who) return this.end('access_revoked');
    const reads = await this.readItems(fresh, who, memo);
    for (const f of fresh) {
      if (isNotificationFrame(f)) this.notification(f, who);
      else if (isItemFrame(f)) this.item(f, reads);
      if (f.checkpoint) this.upTo = f.checkpoint;
    }
  }

  private follows(collection: string): boolean {
    for (const sub of this.subs.values()) if (sub.collection === collection) return true;
    return false;
  }

  private notification(f: RelayFrame & { data: NotificationFrameData }, who: Who): void {
    const d = f.data;
    const recipient: Recipient | null = d.recipient ?? null;
    if (recipient && !receives(who.principal.actor!.id, who.standing, recipient)) return;
    this.send({ type: 'notification', id: f.checkpoint, data: d.payload });
  }

  /**
   * For each subscription, the items of this batch it may send: those it reads now (created or changed) and the
   * deleted ones it could read before their deletion. A subscription the caller may no longer read is dropped with
   * an `error` frame.
   */
  private async readItems(frames: readonly RelayFrame[], who: Who, memo: Memo) {
    const out = new Map<string, { live: Map<string, Record<string, unknown>>; deleted: Map<string, unknown> }>();
    for (const sub of [...this.subs.values()]) {
      const live = new Set<string>();
      const deleted = new Set<string>();
      for (const f of frames) {
        if (!isItemFrame(f)) continue;
        const d = f.data;
        if (d.collection !== sub.collection) continue;
        if (d.event === 'delete') {
          if (!d.purged && sub.events.has('delete')) deleted.add(d.id);
        } else if (sub.events.has(d.event) || sub.seen.has(d.id)) live.add(d.id);
      }
      if (!live.size && !deleted.size) continue;
      const read = (ids: Set<string>, withDeleted: boolean) => {
        const key = JSON.stringify([
          'items',
          this.siteId,
          who.principal.actor!.id,
          this.holder.sessionId,
          sub.collection,
          sub.query,
          withDeleted,
          [...ids],
        ]);
        return memoized(memo, key, () =>
          this.deps.items.read.live(who.principal, sub.collection, sub.query, { ids: [...ids], withDeleted }),
        );
      };
      try {
        out.set(sub.id, {
          live: live.size ? await read(live, false) : new Map(),
          deleted: deleted.size ? await read(deleted, true) : new Map(),
        });
      } catch (err) {
        if (!(err instanceof DomainError)) throw err;
        this.subs.delete(sub.id);
        this.error(err.code, `${err.message}; the subscription ended`, sub.id);
      }
    }
    return out;
  }

  private item(
    f: RelayFrame & { data: ItemFrameData },
    reads: Map<string, { live: Map<string, unknown>; deleted: Map<string, unknown> }>,
  ): void {
    const d = f.data;
    for (const sub of this.subs.values()) {
      if (sub.collection !== d.collection) continue;
      const r = reads.get(sub.id);
      const frame = (event: ItemEventName | 'leave', item: unknown) =>
        this.send({
          type: 'item',
          id: f.checkpoint,
          data: { subscription: sub.id, event, collection: d.collection, id: d.id, item },
        });
      if (d.event === 'delete') {
        const saw = sub.seen.delete(d.id);
        if (sub.events.has('delete') && (saw || r?.deleted.has(d.id))) frame('delete', null);
        continue;
      }
      const item = r?.live.get(d.id);
      if (item && sub.events.has(d.event)) {
        frame(d.event, item);
        sub.seen.delete(d.id);
        sub.seen.add(d.id);
        if (sub.seen.size > MAX_SEEN) sub.seen.delete(sub.seen.values().next().value!);
      } else if (!item && sub.seen.delete(d.id)) frame('leave', null);
    }
  }
}

/** A notification frame with a payload (a peer's message is checked, never trusted). */
const isNotificationFrame = (f: RelayFrame): f is RelayFrame & { data: NotificationFrameData } => {
  if (f.type !== 'notification' || typeof f.data !== 'object' || f.data === null) return false;
  const payload: unknown = Reflect.get(f.data, 'payload');
  return typeof payload === 'object' && payload !== null;
};

/** An item frame with the shape the relay gives it (a peer's message is checked, never trusted). */
const isItemFrame = (f: RelayFrame): f is RelayFrame & { data: ItemFrameData } => {
  if (f.type !== 'item') return false;
  const d = f.data as Partial<ItemFrameData>;
  return typeof d.collection === 'string' && typeof d.id === 'string' && ITEM_EVENTS.includes(d.event!);
};
