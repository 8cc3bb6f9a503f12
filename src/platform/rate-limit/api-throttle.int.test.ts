import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';
import { createUser } from '../../../test/setup/users.ts';
import { freePort } from '../../../test/support/server-process.ts';

const PASSWORD = 'Throttle-pass-4321!';

describe('authenticated API throttle', () => {
  let t: TestApp;
  let admin: string;
  beforeAll(async () => {
    t = await createTestApp({ env: { SVC_RATE_LIMIT_MAX: '3', SVC_RATE_LIMIT_WINDOW_S: '60' } });
    admin = await t.setup();
    await t.call({ method: 'POST', url: '/api/v1/sites', as: admin, payload: { id: 'other', name: 'Other' } });
  });
  afterAll(() => t.close());

  it('counts per principal and site, with the limit headers, and answers 429 past the limit', async () => {
    const read = (as?: string, site = 'main') => t.call({ method: 'GET', url: '/api/v1/site', as, site });
    const first = await read(admin);
    expect(first.headers['x-ratelimit-limit']).toBe('3');
    expect(first.headers['x-ratelimit-remaining']).toBe('2');
    await read(admin);
    await read(admin);
    const limited = await read(admin);
    expect(limited.statusCode).toBe(429);
    expect(limited.json().errors[0].code).toBe('RATE_LIMITED');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited.headers['x-ratelimit-remaining']).toBe('0');
    // Another site, another user, and anonymous callers (by IP) have budgets of their own.
    expect((await read(admin, 'other')).statusCode).toBe(200);
    const editor = await createUser(t, 'throttled@example.com', PASSWORD, { main: 'editor' });
    expect((await read(editor)).statusCode).toBe(200);
    expect((await read(undefined)).statusCode).toBe(401);
  });
});

/** A Redis server of the test's own, so that it can be stopped and started again. */
async function privateRedis(port: number): Promise<ChildProcess> {
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--save', '', '--appendonly', 'no', '--bind', '127.0.0.1'],
    {
      stdio: 'ignore',
    },
  );
  for (let i = 0; i < 100; i++) {
    const ok = await fetch(`http://127.0.0.1:${port}`).then(
      () => true,
      (err: { cause?: { code?: string } }) => err.cause?.code !== 'ECONNREFUSED',
    );
    if (ok) return child;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('redis-server did not start');
}
const stop = (c: ChildProcess) => new Promise<void>((r) => (c.once('exit', () => r()), c.kill('SIGKILL')));

describe('throttle with Redis going down and up', () => {
  it('fails open by default and closed when asked, and counts in Redis again when it is back', async () => {
    const port = await freePort();
    let redis = await privateRedis(port);
    const env = { REDIS_URL: `redis://127.0.0.1:${port}`, SVC_RATE_LIMIT_MAX: '1000', SVC_RATE_LIMIT_WINDOW_S: '60' };
    const open = await createTestApp({ env });
    const closed = await createTestApp({ env: { ...env, SVC_RATE_LIMIT_FAIL_CLOSED: 'true' } });
    try {
      const a = await open.setup();
      const b = await closed.setup();
      const read = (t: TestApp, as: string) => t.call({ method: 'GET', url: '/api/v1/site', as, site: 'main' });
      expect((await read(open, a)).headers['x-ratelimit-remaining']).toBe('999');
      await stop(redis);
      // Down: the default keeps serving (counting in process); fail-closed answers 503.
      expect((await read(open, a)).statusCode).toBe(200);
      let down = await read(closed, b);
      for (let i = 0; i < 20 && down.statusCode === 200; i++) down = await read(closed, b);
      expect(down.statusCode).toBe(503);
      expect(down.json().errors[0].code).toBe('RATE_LIMIT_UNAVAILABLE');
      expect(down.headers['retry-after']).toBeDefined();
      redis = await privateRedis(port);
      let back = await read(closed, b);
      for (let i = 0; i < 50 && back.statusCode !== 200; i++) {
        await new Promise((r) => setTimeout(r, 100));
        back = await read(closed, b);
      }
      expect(back.statusCode).toBe(200);
      // Redis forgot the window when it stopped: the count starts again there.
      expect(Number(back.headers['x-ratelimit-remaining'])).toBeGreaterThanOrEqual(990);
    } finally {
      await open.close();
      await closed.close();
      await stop(redis);
    }
  }, 60_000);
});
