import type { LockSession } from '../../kernel/db/leader-lock.ts';
import type { Logger } from 'pino';
import { LeaderLock } from '../../kernel/db/leader-lock.ts';
import type { DomainEvent, StoredEvent } from '../../kernel/es/event.ts';
import type { StoredEventOf } from '../../kernel/es/projector.ts';
import type { EventStore, GlobalLog, GlobalPosition } from '../../kernel/es/event-store.ts';
import type { RealtimeHub, RelayFrame } from './hub.ts';

/** What a feature sends live: the event types it frames, and the frame of one (null: nothing to send). */
export interface FrameSource {
  types: readonly string[];
  frame(e: StoredEvent): { type: string; data: unknown } | null;
}

/**
 * Declares a frame source over the events `E` (given explicitly): `frame` is handed only events of the types it
 * names, each typed as its own event, as `defineProjector` does for `apply`.
 */
export function defineFrameSource<E extends DomainEvent = never>(spec: {
  types: readonly E['type'][];
  frame: (e: StoredEventOf<E>) => { type: string; data: unknown } | null;
}): FrameSource {
  // The relay calls `frame` only with events whose type `types` names (byType below), which are E's events.
  return { types: spec.types, frame: spec.frame as FrameSource['frame'] };
}

export interface RelayOptions {
  hub: RealtimeHub;
  events: GlobalLog & Pick<EventStore, 'onAppended'>;
  /** The node's lock session for the leader lock (PostgreSQL); null on PGlite (one process). */
  locks: LockSession | null;
  sources: readonly FrameSource[];
  log: Logger;
  /** How often the leader looks for appends it was not woken for (another node's, while pub/sub is down). */
  pollMs: number;
}

export interface Relay {
  /** The frames of these events, in their order (the live relay and a connection's replay make them alike). */
  framesOf(events: readonly StoredEvent[]): RelayFrame[];
  /**
   * Where the relay stands in the log, starting it at the head if it was idle: every frame after the answer reaches
   * the clients joined before the call, so a connection replays up to it and takes the rest live.
   */
  ready(): Promise<GlobalPosition | null>;
  /** Reads the log through what was committed before the call and broadcasts what it frames (tests; otherwise woken by appends and the poll). */
  tick(): Promise<void>;
  stop(): Promise<void>;
}

const PAGE = 500;
const PAGES_PER_TICK = 20;

/**
 * The live relay: one node (the leader, when the frames cross nodes over Redis; else every node for its own
 * clients) reads the log in its order after the last event it framed and broadcasts the frames. Reading the log,
 * never the appends' callbacks, gives every client the frames in log order, so a `Last-Event-ID` resumes exactly.
 * It reads only while someone listens: idle, it forgets its place and starts again at the head when a client comes.
 */
export function startRelay(opts: RelayOptions): Relay {
  const { hub, events } = opts;
  const lock = new LeaderLock(opts.locks, ':realtime');
  const framesOf = framer(opts.sources);
  const s: RelayState = { position: undefined, stopped: false, queued: false, peersUntil: 0, startHint: null };
  const queue = serialQueue(opts.log);
  const leads = leadership(hub, lock, opts.pollMs);
  const listened = () => hub.connections() > 0 || Date.now() < s.peersUntil;
  const step = () => readOn(s, { hub, events, framesOf, listened, leads });
  const wake = (): void => {
    if (s.queued || s.stopped) return;
    s.queued = true;
    void queue.run(async () => {
      s.queued = false;
      await step();
    });
  };
  const unsubscribe = subscribe(s, opts, listened, wake);

  return {
    framesOf,
    ready: async () => {
      await queue.run(async () => {
        if (s.position === undefined) s.position = await events.headPosition();
      });
      const at = s.position ?? null;
      // The leader may be another node, idle until now: it starts no later than this connection's start.
      hub.announceListening(at);
      return at;
    },
    tick: async () => {
      // What was committed before the call: the global read holds back events newer than an older transaction still
      // open (anywhere in the database), so read until the head of the call is reached, giving such one up to 30 s.
      const head = await events.headPosition();
      for (let i = 0; i < 1500; i++) {
        await queue.run(step);
        if (s.position == null || head === null || events.comparePositions(s.position, head) >= 0) return;
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    stop: async () => {
      s.stopped = true;
      unsubscribe();
      await queue.drained();
      await lock.release();
    },
  };
}

/** Where the relay stands and what it knows of the other nodes: shared by its reads and its wake-ups. */
interface RelayState {
  /** The last event framed; undefined while idle (the next read starts at the head, or at `startHint`). */
  position: GlobalPosition | null | undefined;
  stopped: boolean;
  /** A read is queued and has not started: further wakes until then add nothing. */
  queued: boolean;
  /** Until when another node said it has clients (it says so every poll interval while it has). */
  peersUntil: number;
  /** Where a listening node's clients start, for a relay that starts from idle. */
  startHint: GlobalPosition | null;
}

/** The frames of the events some source frames, in the events' order. */
function framer(sources: readonly FrameSource[]): (list: readonly StoredEvent[]) => RelayFrame[] {
  const byType = new Map<string, FrameSource>();
  for (const s of sources) for (const t of s.types) byType.set(t, s);
  return (list) => {
    const out: RelayFrame[] = [];
    for (const e of list) {
      const f = byType.get(e.type)?.frame(e);
      if (f) out.push({ siteId: e.siteId, checkpoint: e.checkpoint, type: f.type, data: f.data });
    }
    return out;
  };
}

/** Runs the relay's work one piece at a time, in order; a failure is logged once until a piece succeeds again. */
function serialQueue(log: Logger) {
  let running: Promise<void> = Promise.resolve();
  let failing = false;
  return {
    run: (work: () => Promise<void>): Promise<void> => {
      const next = running.then(work, work);
      running = next.then(
        () => void (failing = false),
        (err: unknown) => {
          // Its place is kept: the next wake reads on from it, so no frame is skipped by an error.
          if (!failing) log.warn({ err }, 'realtime relay: reading the log failed; it tries again on the next wake');
          failing = true;
        },
      );
      return next;
    },
    /** Settles once the work queued so far has run. */
    drained: () => running.catch(() => undefined),
  };
}

/**
 * Whether this node reads the log: always while frames stay on their node; when they cross nodes, only while it holds
 * the leader lock. A node that lost the lock asks again only after a poll interval (wakes come with every append).
 */
function leadership(hub: RealtimeHub, lock: LeaderLock, pollMs: number): () => Promise<boolean> {
  let followerUntil = 0;
  return async () => {
    if (!hub.crossNode) return true;
    if (Date.now() < followerUntil) return false;
    const won = await lock.acquire();
    if (!won) followerUntil = Date.now() + pollMs;
    return won;
  };
}

interface Reader {
  hub: RealtimeHub;
  events: RelayOptions['events'];
  framesOf: (list: readonly StoredEvent[]) => RelayFrame[];
  listened: () => boolean;
  leads: () => Promise<boolean>;
}

/** One read: up to PAGES_PER_TICK pages of the log after the relay's place, broadcast, by the leader while heard. */
async function readOn(s: RelayState, { hub, events, framesOf, listened, leads }: Reader): Promise<void> {
  if (s.stopped) return;
  // Nobody listens on any node: no read at all (an idle relay costs no database work).
  if (!listened() || !(await leads())) {
    s.position = undefined;
    return;
  }
  if (s.position === undefined) {
    const hint = s.startHint;
    s.startHint = null;
    s.position = hint ?? (await events.headPosition());
    // From the head there is nothing to read yet; from a listening node's start there may be.
    if (hint === null) return;
  }
  for (let i = 0; i < PAGES_PER_TICK; i++) {
    const batch = await events.readAll({ after: s.position ?? undefined, limit: PAGE });
    if (batch.length === 0) return;
    hub.broadcast(framesOf(batch));
    s.position = batch[batch.length - 1]!.checkpoint;
    if (batch.length < PAGE) return;
  }
}

/**
 * Wakes the relay on this node's appends, other nodes' wakes and listeners, and every poll interval (announcing this
 * node's clients); returns the unsubscription.
 */
function subscribe(s: RelayState, opts: RelayOptions, listened: () => boolean, wake: () => void): () => void {
  const { hub, events } = opts;
  const unAppended = events.onAppended(() => {
    // Unheard, the relay forgets its place (the next listener starts at the head, not at a stale place).
    if (!listened()) return void (s.position = undefined);
    hub.wakePeers();
    wake();
  });
  const unPeer = hub.onPeerWake(wake);
  const unListening = hub.onPeerListening((from) => {
    s.peersUntil = Date.now() + 3 * opts.pollMs;
    // The earliest place some node's new clients start from, for when this relay starts from idle.
    if (
      s.position === undefined &&
      from !== null &&
      (s.startHint === null || events.comparePositions(from, s.startHint) < 0)
    )
      s.startHint = from;
    wake();
  });
  const timer = setInterval(() => {
    if (hub.connections() > 0) hub.announceListening(s.position ?? null);
    wake();
  }, opts.pollMs);
  timer.unref();
  return () => {
    clearInterval(timer);
    unAppended();
    unPeer();
    unListening();
  };
}
