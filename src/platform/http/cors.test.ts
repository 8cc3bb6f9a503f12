import { describe, expect, it } from 'vitest';
import Fastify from 'fastify';
import { OriginList } from './cors-origins.ts';
import { buildCorsIndex, cachedCorsIndex, installCors, type CorsIndex } from './cors.ts';

describe('installCors', () => {
  it('keeps Origin in Vary when a route sets its own Vary', async () => {
    const app = Fastify();
    const index = buildCorsIndex([{ siteId: 'a', cors: { origins: ['https://a.example.com'] } }], []);
    await installCors(app, {
      instance: new OriginList(),
      credentials: false,
      index: async () => index,
      publishableKeyId: () => null,
    });
    app.get('/img', async (_req, reply) => reply.header('vary', 'Accept').send('x'));
    const res = await app.inject({ url: '/img', headers: { origin: 'https://a.example.com', 'x-svc-site': 'a' } });
    expect(res.headers.vary).toBe('Accept, Origin');
    expect(res.headers['access-control-allow-origin']).toBe('https://a.example.com');
    await app.close();
  });
});

describe('buildCorsIndex', () => {
  const index = buildCorsIndex(
    [
      { siteId: 'a', cors: { origins: ['https://*.a.example.com'], delivery: 'listed' } },
      { siteId: 'odd', cors: { origins: 'not a list', delivery: 'everything' } },
    ],
    [{ keyId: 'k1', siteId: 'b', allowedOrigins: ['https://kiosk.example.com'] }],
  );

  it("answers per site, per key, and for any site's list", () => {
    expect(index.site('a')?.delivery).toBe('listed');
    expect(index.site('odd')).toMatchObject({ delivery: 'any' });
    expect(index.siteOrKeysAllow('a', 'https://x.a.example.com')).toBe(true);
    expect(index.siteOrKeysAllow('a', 'https://kiosk.example.com')).toBe(false);
    expect(index.siteOrKeysAllow('b', 'https://kiosk.example.com')).toBe(true);
    expect(index.anyAllows('https://kiosk.example.com')).toBe(true);
    expect(index.anyAllows('https://x.a.example.com')).toBe(true);
    expect(index.anyAllows('https://a.example.com')).toBe(false);
    expect(index.key('k1')?.siteId).toBe('b');
  });
});

describe('cachedCorsIndex', () => {
  const empty = buildCorsIndex([], []);
  const counting = () => {
    const state = { loads: 0, fail: false };
    const load = async (): Promise<CorsIndex> => {
      state.loads++;
      if (state.fail) throw new Error('down');
      return empty;
    };
    return { state, load };
  };

  it('reads once per time-to-live, and again after an invalidation', async () => {
    let now = 1_000;
    const { state, load } = counting();
    const cache = cachedCorsIndex(load, 10_000, () => now);
    await Promise.all([cache.index(), cache.index()]);
    now += 9_999;
    await cache.index();
    expect(state.loads).toBe(1);
    now += 1;
    await cache.index();
    expect(state.loads).toBe(2);
    cache.invalidate();
    await cache.index();
    expect(state.loads).toBe(3);
  });

  it('does not keep a failed read', async () => {
    const { state, load } = counting();
    const cache = cachedCorsIndex(load, 10_000, () => 0);
    state.fail = true;
    await expect(cache.index()).rejects.toThrow('down');
    state.fail = false;
    await expect(cache.index()).resolves.toBe(empty);
    expect(state.loads).toBe(2);
  });
});
