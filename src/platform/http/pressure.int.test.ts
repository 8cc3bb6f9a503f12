import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../app.ts';
import { loadConfig } from '../../config.ts';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';

/** Holds the event loop for `ms`, as a CPU-bound request would. */
const block = (ms: number) => {
  const until = Date.now() + ms;
  while (Date.now() < until);
};

describe('pressure limiter', () => {
  let t: TestApp;
  let admin: string;
  beforeAll(async () => {
    // Set up without the limiter (a busy machine could refuse the setup itself), then turn it on.
    t = await createTestApp();
    admin = await t.setup();
    await t.restart({
      SVC_PRESSURE_LIMITER_ENABLED: 'true',
      MAX_EVENT_LOOP_DELAY: '30',
      SAMPLE_INTERVAL: '50',
      RETRY_AFTER: '7',
    });
  });
  afterAll(() => t.close());

  it('answers 503 SERVICE_UNAVAILABLE with Retry-After and X-Svc-Overload while the event loop lags, but not on excluded paths', async () => {
    // Calm first (setting up may itself have held the loop).
    let calm = await t.call({ method: 'GET', url: '/api/v1/site', as: admin, site: 'main' });
    for (let i = 0; i < 200 && calm.statusCode !== 200; i++) {
      await new Promise((r) => setTimeout(r, 50));
      calm = await t.call({ method: 'GET', url: '/api/v1/site', as: admin, site: 'main' });
    }
    expect(calm.statusCode, calm.body + JSON.stringify(calm.headers)).toBe(200);
    // Keep the loop busy (as CPU-bound work would) while asking.
    const busy = setInterval(() => block(300), 5);
    let res = calm;
    let health = calm;
    try {
      for (let i = 0; i < 40 && res.statusCode !== 503; i++) {
        // Let the timers run: the busy work above, and the limiter's sampler.
        await new Promise((r) => setTimeout(r, 120));
        res = await t.call({ method: 'GET', url: '/api/v1/site', as: admin, site: 'main' });
      }
      health = await t.call({ method: 'GET', url: '/health' });
    } finally {
      clearInterval(busy);
    }
    expect(res.statusCode).toBe(503);
    expect(res.json().errors[0].code).toBe('SERVICE_UNAVAILABLE');
    expect(res.headers['retry-after']).toBe('7');
    expect(res.headers['x-svc-overload']).toBeDefined();
    expect(health.statusCode).toBe(200);
  });

  it('reads its settings by their documented names, false turning a check off', () => {
    const c = loadConfig({
      MAX_EVENT_LOOP_DELAY: 'false',
      MAX_EVENT_LOOP_UTILIZATION: '0.9',
      EXCLUDED_PATHS: '/health, /ready',
    });
    expect(c.MAX_EVENT_LOOP_DELAY).toBe(0);
    expect(c.MAX_EVENT_LOOP_UTILIZATION).toBe(0.9);
    expect(c.EXCLUDED_PATHS).toEqual(['/health', '/ready']);
    expect(() => loadConfig({ MAX_EVENT_LOOP_UTILIZATION: '2' })).toThrow(/MAX_EVENT_LOOP_UTILIZATION/);
  });
});

describe('pressure limiter, while it sheds load', () => {
  let t: TestApp;
  let admin: string;
  let app: FastifyInstance;
  const logLines: string[] = [];
  beforeAll(async () => {
    t = await createTestApp();
    admin = await t.setup();
    // Forced on, with no timing involved: any work at all exceeds a utilization of one millionth.
    await t.restart({
      SVC_PRESSURE_LIMITER_ENABLED: 'true',
      MAX_EVENT_LOOP_DELAY: 'false',
      MAX_EVENT_LOOP_UTILIZATION: '0.000001',
      SAMPLE_INTERVAL: '5',
      RETRY_AFTER: '7',
      LOG_LEVEL: 'warn',
    });
    // The app's own logger, so that what fastify warns about (a reply sent twice) is seen.
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        logLines.push(chunk.toString());
        done();
      },
    });
    app = await buildApp(t.deps, { logStream: sink });
    await app.ready();
  });
  afterAll(async () => {
    await app?.close();
    await t.close();
  });

  const ask = (authorization?: string) =>
    app.inject({
      method: 'GET',
      url: '/api/v1/site',
      headers: { 'x-svc-site': 'main', ...(authorization ? { authorization } : {}) },
    });

  it('answers 503 with Retry-After and X-Svc-Overload to anonymous, bad-token and good-token requests alike', async () => {
    // The limiter judges from its first sample on; until then requests pass.
    let first = await ask(`Bearer ${admin}`);
    for (let i = 0; i < 400 && first.statusCode !== 503; i++) {
      await new Promise((r) => setTimeout(r, 10));
      first = await ask(`Bearer ${admin}`);
    }
    const answers = {
      good: await ask(`Bearer ${admin}`),
      anonymous: await ask(),
      bad: await ask('Bearer not-a-token'),
      malformed: await ask('Basic abc'),
    };
    for (const [who, res] of Object.entries(answers)) {
      expect(res.statusCode, `${who}: ${res.body}`).toBe(503);
      expect(res.json().errors[0].code, who).toBe('SERVICE_UNAVAILABLE');
      expect(res.headers['retry-after'], who).toBe('7');
      expect(res.headers['x-svc-overload'], who).toBe('eventLoopUtilization');
    }
    expect((await app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200);
    // Log lines are written as they come; give the stream its turn before reading them.
    await new Promise((r) => setImmediate(r));
    expect(logLines.join('')).not.toMatch(/already sent/i);
  });
});
