import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../app.ts';
import { loadConfig } from '../../config.ts';
import { Redis } from 'ioredis';
import { RedisSharedCache } from '../../adapters/cache/redis-shared-cache.ts';
import { MemorySharedCache } from '../../kernel/cache/shared-cache.ts';
import { startRuntime, type Runtime } from '../../runtime.ts';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';
import { apiClient, firstError } from '../../../test/setup/api.ts';
import { systemMetadata } from '../../../test/support/metadata.ts';
import { openSse } from '../../../test/support/realtime-client.ts';
import { notify } from '../notifications/index.ts';

const raise = (t: TestApp, id: string) =>
  notify(t.deps, {
    siteId: 'main',
    notificationId: id,
    recipient: { type: 'admins' },
    kind: 'run',
    severity: 'info',
    title: id,
    body: '',
    deepLink: null,
    entityId: null,
    metadata: systemMetadata('main'),
  });

/** The admin's SSE connection to the node at `base` (a ticket of app `t`), once it said `ready`. */
async function connect(t: TestApp, admin: string, base: string, headers: Record<string, string> = {}) {
  const { ok } = apiClient(
    () => t,
    () => admin,
  );
  const c = await openSse(`${base}${(await ok('POST', '/api/v1/realtime/ticket')).sse}`, headers);
  expect(c.status, c.body).toBe(200);
  await c.next((f) => f.type === 'ready');
  return c;
}

const listen = async (app: TestApp['app']) => {
  await app.listen({ port: 0, host: '127.0.0.1' });
  return `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
};

describe('one node', () => {
  it('lets one of two claims made at once win', async () => {
    const cache = new MemorySharedCache();
    expect(await Promise.all([cache.claim('t', 1000), cache.claim('t', 1000), cache.claim('u', 1000)])).toEqual([
      true,
      false,
      true,
    ]);
  });

  it('ends its open streams when it shuts down, so closing does not wait on them', async () => {
    const t = await createTestApp();
    const admin = await t.setup();
    const base = await listen(t.app);
    const c = await connect(t, admin, base);
    const started = Date.now();
    await t.close();
    expect(Date.now() - started).toBeLessThan(10_000);
    expect((await c.next((f) => f.type === 'closed')).data.reason).toBe('shutting_down');
  }, 60_000);
});

describe('a reconnection that missed more than a replay reads', () => {
  it('is told to reload (reset), then gets the live frames', async () => {
    const t = await createTestApp({ env: { SVC_REALTIME_MAX_REPLAY: '3' } });
    try {
      const admin = await t.setup();
      const base = await listen(t.app);
      const first = await connect(t, admin, base);
      await raise(t, 'seen');
      await t.deps.realtime.relay.tick();
      const seen = await first.next((f) => f.type === 'notification');
      first.close();
      for (let i = 0; i < 6; i++) await raise(t, `missed-${i}`);
      const { ok } = apiClient(
        () => t,
        () => admin,
      );
      const again = await openSse(`${base}${(await ok('POST', '/api/v1/realtime/ticket')).sse}`, {
        'last-event-id': seen.id!,
      });
      expect((await again.next((f) => f.type !== 'notification')).type).toBe('reset');
      await again.next((f) => f.type === 'ready');
      await raise(t, 'live');
      await t.deps.realtime.relay.tick();
      await again.next((f) => f.type === 'notification' && f.data.id === 'live');
      expect(again.frames.some((f) => f.type === 'notification' && f.data.id === 'missed-5')).toBe(false);
      again.close();
    } finally {
      await t.close();
    }
  }, 60_000);
});

describe('Redis unreachable', () => {
  it('claims tickets and delivers frames on this node alone, and says so once', async () => {
    const errors: unknown[] = [];
    const cache = new RedisSharedCache({ url: 'redis://127.0.0.1:9', prefix: 'down:', onError: (e) => errors.push(e) });
    try {
      expect(await cache.claim('ticket:a', 60_000)).toBe(true);
      expect(await cache.claim('ticket:a', 60_000)).toBe(false);
      expect(await cache.claim('ticket:b', 60_000)).toBe(true);
      await cache.publish('realtime', '[]');
      expect(cache.reachable).toBe(false);
      expect(errors).toHaveLength(1);
    } finally {
      await cache.close();
    }
  });

  it('keeps serving the node’s own realtime clients', async () => {
    const t = await createTestApp({ env: { REDIS_URL: 'redis://127.0.0.1:9' } });
    try {
      const admin = await t.setup();
      const base = await listen(t.app);
      const c = await connect(t, admin, base);
      await raise(t, 'while-redis-is-down');
      await t.deps.realtime.relay.tick();
      await c.next((f) => f.type === 'notification' && f.data.id === 'while-redis-is-down');
      c.close();
    } finally {
      await t.close();
    }
  }, 60_000);
});

const shared = !!process.env.TEST_DATABASE_URL && !!process.env.TEST_REDIS_URL;
if (!shared) console.info('Two-node realtime skipped: it needs TEST_DATABASE_URL and TEST_REDIS_URL');

describe.skipIf(!shared)('two nodes on one database and one Redis', () => {
  let t: TestApp;
  let second: { runtime: Runtime; app: TestApp['app'] };
  let admin: string;
  let baseA: string;
  let baseB: string;
  let keeper: Awaited<ReturnType<typeof openSse>>;

  beforeAll(async () => {
    t = await createTestApp();
    admin = await t.setup();
    const c = t.deps.config;
    const config = loadConfig({
      LOG_LEVEL: 'silent',
      JWT_SECRET: c.JWT_SECRET!,
      REDIS_URL: c.REDIS_URL!,
      REDIS_KEY_PREFIX: c.REDIS_KEY_PREFIX,
      SVC_FILES_DIR: c.SVC_FILES_DIR!,
      SVC_PRESSURE_LIMITER_ENABLED: 'false',
    });
    // Node A leads the relay (a client of its own makes it read, and so take the lock first): it reads the log and
    // publishes; node B only listens.
    baseA = await listen(t.app);
    keeper = await connect(t, admin, baseA);
    await t.deps.realtime.relay.tick();
    const runtime = await startRuntime(config, t.deps.database, pino({ level: 'silent' }), { asyncWorker: false });
    second = { runtime, app: await buildApp(runtime.deps, { logger: false }) };
    baseB = await listen(second.app);
  }, 60_000);
  afterAll(async () => {
    keeper.close();
    await second.app.close();
    await second.runtime.stop();
    await t.close();
  });

  it('delivers a notification appended on one node to a client of the other, over pub/sub', async () => {
    const onB = await connect(t, admin, baseB);
    await raise(t, 'across-nodes');
    await t.deps.realtime.relay.tick();
    await onB.next((f) => f.type === 'notification' && f.data.id === 'across-nodes');
    onB.close();
  });

  it('ignores a malformed message on the channel, and the connections live on', async () => {
    const onB = await connect(t, admin, baseB);
    const raw = new Redis(t.deps.config.REDIS_URL!);
    const channel = `${t.deps.config.REDIS_KEY_PREFIX}rt:realtime`;
    for (const bad of [
      'not json',
      '{"siteId":"main"}',
      JSON.stringify([{ siteId: 'main', type: 'item', checkpoint: 'x:y', data: {} }]),
      JSON.stringify([{ siteId: 'main', type: 'item', checkpoint: null, data: null }]),
      JSON.stringify([{ siteId: 'main', type: 'item', checkpoint: null, data: { collection: 1 } }]),
      JSON.stringify([{ siteId: 'main', type: 'notification', checkpoint: null, data: { payload: null } }]),
    ])
      await raw.publish(channel, `another-node\n${bad}`);
    await raw.quit();
    await raise(t, 'after-garbage');
    await t.deps.realtime.relay.tick();
    await onB.next((f) => f.type === 'notification' && f.data.id === 'after-garbage');
    expect(onB.frames.filter((f) => f.type !== 'ready').map((f) => f.data.id)).toEqual(['after-garbage']);
    onB.close();
  });

  it('lets a ticket open one connection in the whole deployment', async () => {
    const { ok } = apiClient(
      () => t,
      () => admin,
    );
    const { sse } = await ok('POST', '/api/v1/realtime/ticket');
    const first = await openSse(`${baseB}${sse}`);
    expect(first.status).toBe(200);
    first.close();
    const again = await openSse(`${baseA}${sse}`);
    expect([again.status, firstError(again.body).extensions.reason]).toEqual([401, 'ticket_used']);
  });
});
