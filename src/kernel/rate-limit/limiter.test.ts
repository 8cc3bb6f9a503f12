import { describe, expect, it } from 'vitest';
import { MemoryRateLimiter } from './limiter.ts';

describe('MemoryRateLimiter', () => {
  it('allows max hits per window, reports what is left, and starts a new window when it ends', async () => {
    let now = 1_000_000;
    const l = new MemoryRateLimiter(() => now);
    const rule = { max: 2, windowS: 10 };
    expect(await l.hit('k', rule)).toEqual({ allowed: true, limit: 2, remaining: 1, resetS: 10 });
    now += 4000;
    expect(await l.hit('k', rule)).toEqual({ allowed: true, limit: 2, remaining: 0, resetS: 6 });
    expect((await l.hit('k', rule)).allowed).toBe(false);
    expect((await l.hit('other', rule)).allowed).toBe(true);
    now += 6000;
    expect(await l.hit('k', rule)).toMatchObject({ allowed: true, remaining: 1 });
    await l.reset('k');
    expect((await l.hit('k', rule)).remaining).toBe(1);
  });
});
