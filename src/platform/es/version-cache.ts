import type { Logger } from 'pino';
import { ForwardingStore, type EventStore } from '../../kernel/es/event-store.ts';

/**
 * How the nodes of a deployment tell each other that a watched stream moved on: PostgreSQL NOTIFY
 * (adapters/db/version-channel.ts), or nothing at all for the embedded database, which has one node.
 */
export interface VersionChannel {
  /** Tells the other nodes (not necessarily this one) that `streamId` is at `version`. */
  publish(streamId: string, version: number): void;
  /**
   * `onVersion` for each message of another node; `onReset` when messages may have been lost (the listening
   * connection dropped), so that everything cached is read again.
   */
  listen(onVersion: (streamId: string, version: number) => void, onReset: () => void): void;
  /** Whether messages arrive now; while not, the cache is bypassed. */
  readonly live: boolean;
  /** Tells the other nodes that this one appended to the log (the node that reads it for everyone wakes). */
  pokeLog(): void;
  /** `listener` for each "appended" of another node. */
  onLog(listener: () => void): () => void;
  close(): Promise<void>;
}

/** The channel of a deployment of one node (the embedded database): nobody else appends. */
export const singleNode: VersionChannel = {
  publish: () => undefined,
  listen: () => undefined,
  live: true,
  pokeLog: () => undefined,
  onLog: () => () => undefined,
  close: async () => undefined,
};

export interface VersionCacheOptions {
  /** Streams whose version every request checks (a site's schema and access model): the ones kept here. */
  watched: (streamId: string) => boolean;
  /** Longest time a version is trusted without a read, in case a message was lost on the way (0: no cache). */
  maxAgeMs: number;
  /** Most streams kept. */
  maxEntries?: number;
  now?: () => number;
  log?: Logger;
}

/**
 * The event store with the versions of its watched streams kept in this node's memory, so that the check every
 * request makes ("is my cached schema, my cached access model, still current?") costs no round trip. A version
 * moves on at once with this node's own appends (before the append answers), within a NOTIFY's delivery on the
 * other nodes, and at most `maxAgeMs` late if a message was lost; while the channel is down the cache is bypassed.
 * News only moves a version forward, and a read puts back no older one than news that arrived while it ran; a read
 * otherwise replaces what was kept, so a version that no append made (a stray or forged message: any role that may
 * connect may NOTIFY) lasts at most `maxAgeMs`, as a lost message does.
 */
export class VersionCachedStore extends ForwardingStore {
  private readonly versions = new Map<string, { version: number | null; at: number; seq: number }>();
  private readonly now: () => number;
  private readonly max: number;

  constructor(
    inner: EventStore,
    private readonly channel: VersionChannel,
    private readonly opts: VersionCacheOptions,
  ) {
    super(inner);
    this.now = opts.now ?? Date.now;
    this.max = opts.maxEntries ?? 20_000;
    inner.onAppended((events) => {
      for (const e of events) {
        if (!opts.watched(e.streamId)) continue;
        this.advance(e.streamId, e.streamVersion);
        channel.publish(e.streamId, e.streamVersion);
      }
    });
    channel.listen(
      (streamId, version) => {
        if (opts.watched(streamId)) this.advance(streamId, version);
      },
      () => this.versions.clear(),
    );
  }

  override async streamVersion(streamId: string): Promise<number | null> {
    if (this.opts.maxAgeMs <= 0 || !this.opts.watched(streamId)) return this.inner.streamVersion(streamId);
    const hit = this.versions.get(streamId);
    if (hit && this.channel.live && this.now() - hit.at < this.opts.maxAgeMs) return hit.version;
    const asked = this.seq;
    const version = await this.inner.streamVersion(streamId);
    // The database's answer stands, unless news of the stream arrived while it was read (then the larger wins): a
    // version that no append made (a stray message) lasts until the next read.
    const touched = this.versions.get(streamId)?.seq ?? 0;
    return touched > asked ? this.advance(streamId, version) : this.keep(streamId, version);
  }

  /** Counts every change of what is kept, so a read knows whether news arrived while it was under way. */
  private seq = 0;

  /** Keeps the larger of what is known and `version`; returns what is kept. */
  private advance(streamId: string, version: number | null): number | null {
    const known = this.versions.get(streamId)?.version ?? null;
    return this.keep(streamId, known === null || (version !== null && version > known) ? version : known);
  }

  private keep(streamId: string, version: number | null): number | null {
    this.versions.delete(streamId);
    this.versions.set(streamId, { version, at: this.now(), seq: ++this.seq });
    if (this.versions.size > this.max) this.versions.delete(this.versions.keys().next().value!);
    return version;
  }

  override async close(): Promise<void> {
    await this.channel.close();
    await super.close();
  }
}
