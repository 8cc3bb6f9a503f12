import type { Logger } from 'pino';
import type { SharedCache } from '../../kernel/cache/shared-cache.ts';

/**
 * One thing that happened on a site, as the relay hands it to the connections: a committed event turned into a
 * frame by the feature that owns it (`type`, `data`), at its place in the log (`checkpoint`, the client's
 * `Last-Event-ID`), or a frame outside the log (a test push: `checkpoint` null, never replayed).
 */
export interface RelayFrame {
  siteId: string;
  checkpoint: string | null;
  type: string;
  data: unknown;
}

/** A connected client of this node: its site, and what it does with that site's frames (in log order). */
export interface RealtimeClient {
  siteId: string;
  /**
   * `memo`: one map per delivery and site, shared by that site's clients of this node, so alike clients share
   * their reads (never across sites).
   */
  receive(frames: readonly RelayFrame[], memo: Map<string, Promise<unknown>>): void;
  /** The server ends the client (shutting down). */
  end(reason: string): void;
}

const CHANNEL = 'realtime';
const LISTENING = 'realtime-listening';
/** A log position as the stores write it (`<n>:<n>`). */
const POSITION = /^\d{1,19}:\d{1,19}$/;
const WAKE = 'realtime-wake';

/**
 * The per-site rooms of this node, and the wire to the other nodes. Frames given to `broadcast` reach this node's
 * clients of their site at once and the other nodes' over the shared cache's pub/sub (Redis); without Redis, or
 * while it is unreachable, they reach this node's clients only (the inbox and the replay on reconnection cover the
 * rest; the shared cache logs the outage once).
 */
export class RealtimeHub {
  private readonly rooms = new Map<string, Set<RealtimeClient>>();
  private readonly stops: (() => void)[] = [];
  private wakeListeners = new Set<() => void>();
  private listeningListeners = new Set<(from: string | null) => void>();

  constructor(
    private readonly shared: SharedCache,
    private readonly log: Logger,
  ) {
    this.stops.push(shared.subscribe(CHANNEL, (m) => this.fromPeer(m)));
    this.stops.push(shared.subscribe(WAKE, () => this.wakeListeners.forEach((w) => w())));
    this.stops.push(
      shared.subscribe(LISTENING, (m) => {
        const from = POSITION.test(m) ? m : null;
        this.listeningListeners.forEach((l) => l(from));
      }),
    );
  }

  /** Whether frames cross nodes now: Redis configured and reachable. */
  get crossNode(): boolean {
    return this.shared.kind === 'redis' && this.shared.reachable;
  }

  /** How many clients this node holds (of one site, or in all). */
  connections(siteId?: string): number {
    if (siteId !== undefined) return this.rooms.get(siteId)?.size ?? 0;
    let n = 0;
    for (const room of this.rooms.values()) n += room.size;
    return n;
  }

  /** Adds a client to its site's room; returns the function that removes it. */
  join(client: RealtimeClient): () => void {
    let room = this.rooms.get(client.siteId);
    if (!room) this.rooms.set(client.siteId, (room = new Set()));
    room.add(client);
    return () => {
      room.delete(client);
      if (room.size === 0 && this.rooms.get(client.siteId) === room) this.rooms.delete(client.siteId);
    };
  }

  /** Sends frames to this node's clients and to the other nodes'; the number of this node's clients reached. */
  broadcast(frames: readonly RelayFrame[]): number {
    if (frames.length === 0) return 0;
    void this.shared.publish(CHANNEL, JSON.stringify(frames));
    return this.deliver(frames);
  }

  /** Tells the other nodes that this one appended (the relay's leader reads the log at once instead of polling). */
  wakePeers(): void {
    if (this.shared.kind === 'redis') void this.shared.publish(WAKE, '');
  }

  /**
   * Tells the other nodes that this one has clients, which take frames after `from` (the relay's leader reads only
   * while some node listens, and when it starts it starts there).
   */
  announceListening(from: string | null): void {
    if (this.shared.kind === 'redis') void this.shared.publish(LISTENING, from ?? '');
  }

  /** Calls `listener` when another node says it has clients; returns the function that stops it. */
  onPeerListening(listener: (from: string | null) => void): () => void {
    this.listeningListeners.add(listener);
    return () => this.listeningListeners.delete(listener);
  }

  /** Calls `listener` when another node appended; returns the function that stops it. */
  onPeerWake(listener: () => void): () => void {
    this.wakeListeners.add(listener);
    return () => this.wakeListeners.delete(listener);
  }

  /** Consumes a single-use key (a ticket's id): true the first time anywhere in the deployment, false after. */
  claim(key: string, ttlMs: number): Promise<boolean> {
    return this.shared.claim(`claim:${key}`, ttlMs);
  }

  private deliver(frames: readonly RelayFrame[]): number {
    const bySite = new Map<string, RelayFrame[]>();
    for (const f of frames) {
      const list = bySite.get(f.siteId);
      if (list) list.push(f);
      else bySite.set(f.siteId, [f]);
    }
    let reached = 0;
    for (const [siteId, list] of bySite) {
      const memo = new Map<string, Promise<unknown>>();
      for (const client of this.rooms.get(siteId) ?? []) {
        try {
          client.receive(list, memo);
          reached++;
        } catch (err) {
          this.log.warn({ err, siteId }, 'realtime: a client failed on a frame');
        }
      }
    }
    return reached;
  }

  /** Ends every client of this node (before the server closes: open streams would hold it). */
  endAll(reason: string): void {
    for (const room of [...this.rooms.values()]) for (const client of [...room]) client.end(reason);
  }

  /** Frames another node published: only well-formed ones are delivered. */
  private fromPeer(message: string): void {
    let parsed: unknown;
    try {
      parsed = JSON.parse(message);
    } catch {
      return;
    }
    if (!Array.isArray(parsed)) return;
    const frames = parsed.filter(
      (f): f is RelayFrame =>
        typeof f === 'object' &&
        f !== null &&
        typeof f.siteId === 'string' &&
        typeof f.type === 'string' &&
        typeof f.data === 'object' &&
        f.data !== null &&
        (f.checkpoint === null || (typeof f.checkpoint === 'string' && POSITION.test(f.checkpoint))),
    );
    this.deliver(frames);
  }

  async close(): Promise<void> {
    for (const stop of this.stops) stop();
    this.rooms.clear();
    this.wakeListeners.clear();
    this.listeningListeners.clear();
    await this.shared.close();
  }
}
