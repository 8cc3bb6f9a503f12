import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import {
  MemoryRateLimiter,
  verdict,
  type RateLimiter,
  type RateRule,
  type RateVerdict,
} from '../../kernel/rate-limit/limiter.ts';
import { RateLimiterUnavailable } from '../../kernel/http/kernel.errors.ts';

// One round trip, atomic: count the hit, start the window on the first one, report the time left.
const HIT = `
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
return {n, ttl}`;

export interface RedisLimiterOptions {
  url: string;
  /** Prefix of every key, so that several deployments (or test files) can share one Redis. */
  prefix: string;
  /** Answer 503 RATE_LIMIT_UNAVAILABLE while Redis is down, instead of counting in-process. */
  failClosed: boolean;
  log: Logger;
}

/**
 * Fixed windows in Redis, shared by every node. While Redis is unreachable it fails open: it logs once and
 * counts in-process (each node then holds its own budget) until Redis answers again; or, fail-closed,
 * refuses with 503 RATE_LIMIT_UNAVAILABLE.
 */
export class RedisRateLimiter implements RateLimiter {
  private readonly redis: Redis;
  private readonly fallback = new MemoryRateLimiter();
  private down = false;

  constructor(private readonly opts: RedisLimiterOptions) {
    this.redis = new Redis(opts.url, {
      lazyConnect: false,
      // Commands sent before the first connection wait for it; once Redis is known to be down, hit() does not
      // send them at all (see `down`), so a request never waits on a dead server.
      enableOfflineQueue: true,
      maxRetriesPerRequest: 0,
      commandTimeout: 500,
      retryStrategy: (times) => Math.min(times * 200, 2000),
    });
    this.redis.on('error', () => this.markDown());
    this.redis.on('ready', () => {
      if (this.down) opts.log.warn('rate limiter: Redis is back; counting in Redis again');
      this.down = false;
    });
    this.redis.defineCommand('svcHit', { numberOfKeys: 1, lua: HIT });
  }

  async hit(key: string, rule: RateRule): Promise<RateVerdict> {
    if (this.down) return this.unavailable(key, rule);
    try {
      const [count, ttl] = (await (
        this.redis as unknown as { svcHit(k: string, ms: number): Promise<[number, number]> }
      ).svcHit(this.opts.prefix + key, rule.windowS * 1000)) as [number, number];
      return verdict(count, rule.max, ttl);
    } catch {
      this.markDown();
      return this.unavailable(key, rule);
    }
  }

  private unavailable(key: string, rule: RateRule): Promise<RateVerdict> {
    if (this.opts.failClosed) throw new RateLimiterUnavailable();
    return this.fallback.hit(key, rule);
  }

  async reset(key: string): Promise<void> {
    await this.fallback.reset(key);
    if (!this.down) await this.redis.del(this.opts.prefix + key).catch(() => this.markDown());
  }

  async health(): Promise<{ kind: 'redis'; status: 'ok' | 'down' }> {
    if (this.down) return { kind: 'redis', status: 'down' };
    const ok = await this.redis.ping().then(
      () => true,
      () => false,
    );
    return { kind: 'redis', status: ok ? 'ok' : 'down' };
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }

  private markDown(): void {
    if (this.down) return;
    this.down = true;
    this.opts.log.error('rate limiter: Redis is unreachable; counting in-process until it returns');
  }
}
