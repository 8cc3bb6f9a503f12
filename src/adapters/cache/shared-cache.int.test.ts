import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { MemorySharedCache, type SharedCache } from '../../kernel/cache/shared-cache.ts';
import { RedisSharedCache } from './redis-shared-cache.ts';

const redisUrl = process.env.TEST_REDIS_URL;
const prefix = `t${randomBytes(6).toString('hex')}:`;
const opened: SharedCache[] = [];
const open = <T extends SharedCache>(c: T) => (opened.push(c), c);
afterAll(async () => {
  const c = opened.find((x) => x.kind === 'redis');
  await c?.deletePrefix('');
  await Promise.all(opened.map((x) => x.close()));
});

const adapters: [string, () => SharedCache][] = [['in-process', () => open(new MemorySharedCache())]];
if (redisUrl) adapters.push(['Redis', () => open(new RedisSharedCache({ url: redisUrl, prefix }))]);
else console.log('shared cache: the Redis adapter is skipped (TEST_REDIS_URL not set)');

describe.each(adapters)('SharedCache (%s)', (_, make) => {
  const c = make();
  it('keeps a value under its key until deleted', async () => {
    expect(await c.get('neg:a')).toBeNull();
    await c.set('neg:a', '1', 60_000);
    expect(await c.get('neg:a')).toBe('1');
    expect(await c.delete(['neg:a', 'neg:none'])).toBe(1);
    expect(await c.get('neg:a')).toBeNull();
  });
  it('does not keep a value with a TTL of 0', async () => {
    await c.set('neg:zero', '1', 0);
    expect(await c.get('neg:zero')).toBeNull();
  });
  it('deletes by prefix, glob characters taken literally', async () => {
    for (const k of ['p:s1:a', 'p:s1:b/c', 'p:s10:a', 'p:s*:x']) await c.set(k, '1', 60_000);
    expect(await c.deletePrefix('p:s1:')).toBe(2);
    expect(await c.get('p:s10:a')).toBe('1');
    expect(await c.deletePrefix('p:s*')).toBe(1);
    expect(await c.get('p:s10:a')).toBe('1');
  });
});

describe('MemorySharedCache', () => {
  it('expires values by their TTL', async () => {
    let now = 0;
    const c = open(new MemorySharedCache(() => now));
    await c.set('k', 'v', 1000);
    now = 999;
    expect(await c.get('k')).toBe('v');
    now = 1000;
    expect(await c.get('k')).toBeNull();
  });
});

describe.skipIf(!redisUrl)('RedisSharedCache across nodes', () => {
  it('sees one node delete what another wrote, and carries messages to the other nodes only', async () => {
    const a = open(new RedisSharedCache({ url: redisUrl!, prefix }));
    const b = open(new RedisSharedCache({ url: redisUrl!, prefix }));
    await a.set('shared', '1', 60_000);
    expect(await b.get('shared')).toBe('1');
    await b.delete(['shared']);
    expect(await a.get('shared')).toBeNull();
    const toA: string[] = [];
    const toB: string[] = [];
    a.subscribe('chan', (m) => toA.push(m));
    const received = new Promise<string>((resolve) => b.subscribe('chan', resolve));
    b.subscribe('chan', (m) => toB.push(m));
    await Promise.all([a.ready(), b.ready()]);
    await a.publish('chan', 'hello\nworld');
    expect(await received).toBe('hello\nworld');
    expect(toB).toEqual(['hello\nworld']);
    expect(toA).toEqual([]);
  });
});

describe.skipIf(!redisUrl)('RedisSharedCache with Redis unreachable', () => {
  it('misses and drops writes instead of failing', async () => {
    const errors: unknown[] = [];
    const c = open(new RedisSharedCache({ url: 'redis://127.0.0.1:1', prefix, onError: (e) => errors.push(e) }));
    await c.set('k', 'v', 1000);
    expect(await c.get('k')).toBeNull();
    expect(await c.delete(['k'])).toBe(0);
    expect(errors.length).toBeGreaterThan(0);
  });
});
