/**
 * Small values with a time to live that every node of a deployment sees alike (negative-cache markers), plus a
 * message channel to every other node (cache invalidations). In-process without Redis (one node); in Redis
 * when REDIS_URL is set, keys and channels under REDIS_KEY_PREFIX.
 */
export interface SharedCache {
  readonly kind: 'memory' | 'redis';
  /** False while the shared store is unreachable (then every answer is this node's alone). */
  readonly reachable: boolean;
  /** The value, or null when absent, expired, or the cache is unreachable (a cache never fails a request). */
  get(key: string): Promise<string | null>;
  set(key: string, value: string, ttlMs: number): Promise<void>;
  /**
   * Sets the key only if it is absent (for `ttlMs`): true for the one caller that set it, false for every later one
   * while it lives (a single-use token's consumption). While Redis is unreachable, decided in this process alone.
   */
  claim(key: string, ttlMs: number): Promise<boolean>;
  /** Removes these keys; the number that existed. */
  delete(keys: string[]): Promise<number>;
  /** Removes every key starting with `prefix`; the number removed. */
  deletePrefix(prefix: string): Promise<number>;
  /** Sends a message to the other nodes listening on `channel` (not to this one). */
  publish(channel: string, message: string): Promise<void>;
  /** Listens on `channel`; returns the function that stops listening. */
  subscribe(channel: string, onMessage: (message: string) => void): () => void;
  close(): Promise<void>;
}

/** The single-node cache: a map with expiry; publishing reaches nobody, as there is no other node. */
export class MemorySharedCache implements SharedCache {
  readonly kind = 'memory' as const;
  readonly reachable = true;
  private readonly values = new Map<string, { value: string; expiresAt: number }>();
  private sweptAt = 0;

  constructor(private readonly now: () => number = Date.now) {}

  async get(key: string): Promise<string | null> {
    const e = this.values.get(key);
    if (!e) return null;
    if (e.expiresAt <= this.now()) {
      this.values.delete(key);
      return null;
    }
    return e.value;
  }

  async set(key: string, value: string, ttlMs: number): Promise<void> {
    if (ttlMs <= 0) return;
    this.sweep();
    this.values.set(key, { value, expiresAt: this.now() + ttlMs });
  }

  /** Check and set with no await between them: two claims at once cannot both win. */
  async claim(key: string, ttlMs: number): Promise<boolean> {
    const e = this.values.get(key);
    if (e && e.expiresAt > this.now()) return false;
    if (ttlMs <= 0) return true;
    this.sweep();
    this.values.set(key, { value: '1', expiresAt: this.now() + ttlMs });
    return true;
  }

  async delete(keys: string[]): Promise<number> {
    let n = 0;
    for (const k of keys) if ((await this.get(k)) !== null && this.values.delete(k)) n++;
    return n;
  }

  async deletePrefix(prefix: string): Promise<number> {
    const keys = [...this.values.keys()].filter((k) => k.startsWith(prefix));
    return this.delete(keys);
  }

  async publish(): Promise<void> {}

  subscribe(): () => void {
    return () => undefined;
  }

  async close(): Promise<void> {
    this.values.clear();
  }

  /** Drops expired markers now and then, so that a stream of unknown keys cannot grow the map for ever. */
  private sweep(): void {
    const now = this.now();
    if (now - this.sweptAt < 60_000) return;
    this.sweptAt = now;
    for (const [k, e] of this.values) if (e.expiresAt <= now) this.values.delete(k);
  }
}

/** Opens a shared cache under a key prefix (after the deployment's REDIS_KEY_PREFIX); `onError` hears of outages. */
export type SharedCaches = (prefix: string, onError: (err: unknown) => void) => SharedCache;
