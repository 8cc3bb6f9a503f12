import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import type { StoredEvent } from '../../kernel/es/event.ts';
import { MemorySharedCache, type SharedCache } from '../../kernel/cache/shared-cache.ts';
import { RedisSharedCache } from '../../adapters/cache/redis-shared-cache.ts';
import { DeliveryCache, type DeliveredPage } from './delivery-cache.ts';

const ttl = { negativeS: 30, responseS: 60 };
const page = (slug: string, refs: string[] = []): DeliveredPage => ({
  body: '{}',
  etag: '"e"',
  slug,
  pageId: `id-${slug}`,
  refs: new Set(refs),
});
const event = (siteId: string, type: string, data: unknown) => ({ siteId, type, data }) as unknown as StoredEvent;
const opened: { close(): unknown }[] = [];
afterAll(async () => {
  for (const c of opened.reverse()) await c.close();
});
const cacheOn = (shared: SharedCache) => {
  const c = new DeliveryCache(shared, ttl);
  opened.push(shared, c);
  return c;
};

describe('DeliveryCache', () => {
  it('drops the pages a committed item, page or schema change makes stale, on that site only', () => {
    const c = cacheOn(new MemorySharedCache());
    for (const site of ['a', 'b']) {
      c.keep(site, page('home', ['articles/1']), c.generation(site));
      c.keep(site, page('about', ['articles/2']), c.generation(site));
      c.keep(site, page('blog/x'), c.generation(site));
    }
    c.onAppended([event('a', 'ItemUpdated', { collection: 'articles', id: '1' })]);
    expect([c.response('a', 'home'), c.response('a', 'about')]).toEqual([undefined, page('about', ['articles/2'])]);
    c.onAppended([event('a', 'PageUpdated', { pageId: 'id-about', slug: 'about', changes: {} })]);
    expect(c.response('a', 'about')).toBeUndefined();
    c.onAppended([event('a', 'FieldCreated', { collection: 'other' })]);
    expect(c.response('a', 'blog/x')).toBeUndefined();
    expect([c.response('b', 'home'), c.response('b', 'about'), c.response('b', 'blog/x')].every(Boolean)).toBe(true);
  });

  it('does not keep a page resolved across an invalidation of its site', () => {
    const c = cacheOn(new MemorySharedCache());
    const generation = c.generation('a');
    c.onAppended([event('a', 'ItemUpdated', { collection: 'articles', id: '1' })]);
    c.keep('a', page('home', ['articles/1']), generation);
    expect(c.response('a', 'home')).toBeUndefined();
    c.keep('a', page('home', ['articles/1']), c.generation('a'));
    expect(c.response('a', 'home')).toBeDefined();
  });

  it('clears negative markers of the slugs a page event names', async () => {
    const c = cacheOn(new MemorySharedCache());
    await c.markMissing('a', 'new');
    await c.markMissing('a', 'old');
    expect(await c.isMissing('a', 'new')).toBe(true);
    await c.invalidate({ site: 'a', slugs: ['new'] });
    expect([await c.isMissing('a', 'new'), await c.isMissing('a', 'old')]).toEqual([false, true]);
  });

  it('keeps no negative marker when its TTL is 0', async () => {
    const c = new DeliveryCache(new MemorySharedCache(), { negativeS: 0, responseS: 60 });
    opened.push(c);
    await c.markMissing('a', 'x');
    expect(await c.isMissing('a', 'x')).toBe(false);
  });
});

const redisUrl = process.env.TEST_REDIS_URL;
describe.skipIf(!redisUrl)('DeliveryCache on two nodes sharing Redis', () => {
  it("drops the other node's copy and shares negative markers", async () => {
    const prefix = `t${randomBytes(6).toString('hex')}:`;
    const sharedA = new RedisSharedCache({ url: redisUrl!, prefix });
    const sharedB = new RedisSharedCache({ url: redisUrl!, prefix });
    const a = cacheOn(sharedA);
    const b = cacheOn(sharedB);
    await Promise.all([sharedA.ready(), sharedB.ready()]);
    b.keep('s', page('home', ['articles/1']), b.generation('s'));
    await b.markMissing('s', 'soon');
    expect(await a.isMissing('s', 'soon')).toBe(true);
    const dropped = new Promise<void>((resolve) => sharedB.subscribe('deliver:invalidate', () => resolve()));
    await a.invalidate({ site: 's', slugs: ['soon'], items: ['articles/1'] });
    await dropped;
    expect(b.response('s', 'home')).toBeUndefined();
    expect(await b.isMissing('s', 'soon')).toBe(false);
    await sharedA.deletePrefix('');
  });
});
