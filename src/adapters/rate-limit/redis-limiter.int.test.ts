import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { DomainError } from '../../kernel/http/errors.ts';
import { RedisRateLimiter } from './redis-limiter.ts';

const url = process.env.TEST_REDIS_URL;
if (!url) console.log('Redis rate limiter tests skipped: TEST_REDIS_URL is not set');
const log = pino({ level: 'silent' });

describe.skipIf(!url)('RedisRateLimiter', () => {
  it('shares one budget between nodes', async () => {
    const prefix = `t${randomBytes(4).toString('hex')}:`;
    const a = new RedisRateLimiter({ url: url!, prefix, failClosed: false, log });
    const b = new RedisRateLimiter({ url: url!, prefix, failClosed: false, log });
    try {
      const rule = { max: 3, windowS: 30 };
      const verdicts = await Promise.all([a, b, a, b].map((l) => l.hit('login:ip:1', rule)));
      expect(verdicts.filter((v) => v.allowed)).toHaveLength(3);
      expect(verdicts.every((v) => v.resetS > 0 && v.resetS <= 30)).toBe(true);
      await b.reset('login:ip:1');
      expect((await a.hit('login:ip:1', rule)).remaining).toBe(2);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('fails open to in-process counting when Redis is unreachable, or closed with 503 when asked to', async () => {
    const closedPort = 'redis://127.0.0.1:1';
    const open = new RedisRateLimiter({ url: closedPort, prefix: 'x:', failClosed: false, log });
    const closed = new RedisRateLimiter({ url: closedPort, prefix: 'x:', failClosed: true, log });
    try {
      const rule = { max: 1, windowS: 30 };
      expect((await open.hit('k', rule)).allowed).toBe(true);
      expect((await open.hit('k', rule)).allowed).toBe(false);
      const err = await closed.hit('k', rule).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(DomainError);
      expect((err as DomainError).code).toBe('RATE_LIMIT_UNAVAILABLE');
    } finally {
      await open.close();
      await closed.close();
    }
  });
});
