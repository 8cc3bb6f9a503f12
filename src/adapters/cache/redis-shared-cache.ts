import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { MemorySharedCache, type SharedCache } from '../../kernel/cache/shared-cache.ts';

export interface RedisCacheOptions {
  url: string;
  /** REDIS_KEY_PREFIX: several deployments (or test files) share one Redis. */
  prefix: string;
  /** Told once per outage (a cache outage degrades, it never fails a request). */
  onError?: (err: unknown) => void;
}

const glob = (s: string) => s.replace(/[*?[\]\\]/g, (c) => `\\${c}`);

/**
 * The shared cache in Redis: markers with PX expiry, and pub/sub for messages to the other nodes. While Redis is
 * unreachable reads miss and writes are dropped: a cache failure costs database work, never an error.
 */
export class RedisSharedCache implements SharedCache {
  readonly kind = 'redis' as const;
  private readonly redis: Redis;
  private subscriber: Redis | null = null;
  private readonly handlers = new Map<string, Set<(message: string) => void>>();
  private readonly node = randomUUID();
  private failing = false;
  /** Where claims are decided while Redis is unreachable: this node alone (a degraded, never a failing, answer). */
  private readonly local = new MemorySharedCache();

  constructor(private readonly opts: RedisCacheOptions) {
    this.redis = new Redis(opts.url, { maxRetriesPerRequest: 1, commandTimeout: 500 });
    this.redis.on('error', (err) => this.failed(err));
    this.redis.on('ready', () => (this.failing = false));
  }

  get reachable(): boolean {
    return !this.failing;
  }

  private key = (k: string) => this.opts.prefix + k;

  private failed(err: unknown): void {
    if (this.failing) return;
    this.failing = true;
    this.opts.onError?.(err);
  }

  private async attempt<T>(fallback: T, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      this.failed(err);
      return fallback;
    }
  }

  get(key: string): Promise<string | null> {
    return this.attempt(null, () => this.redis.get(this.key(key)));
  }

  async set(key: string, value: string, ttlMs: number): Promise<void> {
    if (ttlMs <= 0) return;
    await this.attempt(null, () => this.redis.set(this.key(key), value, 'PX', ttlMs));
  }

  async claim(key: string, ttlMs: number): Promise<boolean> {
    const r = await this.attempt<'OK' | null | 'unreachable'>('unreachable', () =>
      this.redis.set(this.key(key), '1', 'PX', Math.max(1, ttlMs), 'NX'),
    );
    return r === 'unreachable' ? this.local.claim(key, ttlMs) : r === 'OK';
  }

  delete(keys: string[]): Promise<number> {
    if (!keys.length) return Promise.resolve(0);
    return this.attempt(0, () => this.redis.del(...keys.map(this.key)));
  }

  deletePrefix(prefix: string): Promise<number> {
    return this.attempt(0, async () => {
      let n = 0;
      let cursor = '0';
      do {
        const [next, keys] = await this.redis.scan(cursor, 'MATCH', `${glob(this.key(prefix))}*`, 'COUNT', 500);
        cursor = next;
        if (keys.length) n += await this.redis.del(...keys);
      } while (cursor !== '0');
      return n;
    });
  }

  async publish(channel: string, message: string): Promise<void> {
    await this.attempt(0, () => this.redis.publish(this.key(channel), `${this.node}\n${message}`));
  }

  subscribe(channel: string, onMessage: (message: string) => void): () => void {
    const full = this.key(channel);
    if (!this.subscriber) {
      this.subscriber = this.redis.duplicate();
      this.subscriber.on('error', (err) => this.failed(err));
      this.subscriber.on('message', (ch: string, raw: string) => {
        const at = raw.indexOf('\n');
        if (raw.slice(0, at) === this.node) return;
        for (const h of this.handlers.get(ch) ?? []) h(raw.slice(at + 1));
      });
    }
    let set = this.handlers.get(full);
    if (!set) {
      this.handlers.set(full, (set = new Set()));
      void this.subscriber.subscribe(full).catch((err: unknown) => this.failed(err));
    }
    set.add(onMessage);
    return () => set.delete(onMessage);
  }

  /** Resolves once the subscriptions are in place (tests; production listens as soon as it can). */
  async ready(): Promise<void> {
    if (this.subscriber && this.handlers.size) await this.subscriber.subscribe(...this.handlers.keys());
  }

  async close(): Promise<void> {
    this.subscriber?.disconnect();
    this.redis.disconnect();
  }
}
