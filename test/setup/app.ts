import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import type { AppDeps } from '../../src/deps.ts';
import type { Clock } from '../../src/kernel/clock.ts';
import { startRuntime } from '../../src/runtime.ts';
import { openTestDatabase } from './db.ts';

export const ADMIN = { email: 'admin@example.com', password: 'Correct-horse-42!' };

export interface TestApp {
  app: FastifyInstance;
  deps: AppDeps;
  /** Sends a request; `as` is a bearer token, `site` an X-Svc-Site value. */
  call(opts: InjectOptions & { as?: string; site?: string }): Promise<LightMyRequestResponse>;
  /** Runs setup (site `main`) and returns the admin's token. */
  setup(): Promise<string>;
  /**
   * Stops the service and starts it again on the same database, with this environment (same JWT secret). A start
   * that fails rejects and leaves the app stopped; a later restart starts it.
   */
  restart(env?: Record<string, string>): Promise<void>;
  close(): Promise<void>;
}

/**
 * The event store and projection mode of the run (EVENTSTORE_URL, SVC_PROJECTION_MODE), so a suite runs unchanged on
 * EventStoreDB or with the subscription; on a shared EventStoreDB each app has a stream prefix of its own.
 */
const storeEnv = (prefix: string): Record<string, string> => ({
  ...(process.env.SVC_PROJECTION_MODE ? { SVC_PROJECTION_MODE: process.env.SVC_PROJECTION_MODE } : {}),
  ...(process.env.EVENTSTORE_URL
    ? { EVENTSTORE_URL: process.env.EVENTSTORE_URL, EVENTSTORE_STREAM_PREFIX: `t${prefix}-` }
    : {}),
});

/** The whole service on a database of its own, driven through app.inject(). */
export async function createTestApp(opts: { env?: Record<string, string>; clock?: Clock } = {}): Promise<TestApp> {
  const database = await openTestDatabase();
  const prefix = randomBytes(6).toString('hex');
  // Files on a disk folder of the app's own, or (TEST_S3_ENDPOINT) under a prefix of its own in the test bucket.
  const filesDir = await mkdtemp(join(tmpdir(), 'svc-test-files-'));
  const s3 = process.env.TEST_S3_ENDPOINT
    ? {
        S3_ENDPOINT: process.env.TEST_S3_ENDPOINT,
        S3_BUCKET: process.env.TEST_S3_BUCKET ?? 'svc-test',
        S3_REGION: process.env.TEST_S3_REGION ?? 'us-east-1',
        S3_ACCESS_KEY_ID: process.env.TEST_S3_ACCESS_KEY_ID ?? '',
        S3_SECRET_ACCESS_KEY: process.env.TEST_S3_SECRET_ACCESS_KEY ?? '',
        S3_PREFIX: `t${prefix}/`,
      }
    : {};
  const boot = async (env: Record<string, string> = {}) => {
    const config = loadConfig({
      LOG_LEVEL: 'silent',
      JWT_SECRET: 'test-secret-test-secret-test-secret-123',
      // Each test file counts against its own keys in the shared Redis.
      ...(process.env.TEST_REDIS_URL ? { REDIS_URL: process.env.TEST_REDIS_URL, REDIS_KEY_PREFIX: `t${prefix}:` } : {}),
      SVC_LOGIN_MAX_PER_IP: '10000',
      SVC_RATE_LIMIT_MAX: '1000000',
      // A test file's own bursts (and PGlite working inside the process) would trip it; its test turns it on.
      SVC_PRESSURE_LIMITER_ENABLED: 'false',
      SVC_REGISTER_MAX_PER_IP: '10000',
      SVC_RECOVERY_MAX_PER_IP: '10000',
      SVC_FILES_DIR: filesDir,
      SVC_UPLOAD_TMP_DIR: join(filesDir, '.uploads'),
      ...s3,
      ...storeEnv(prefix),
      ...env,
    });
    const runtime = await startRuntime(config, database, pino({ level: 'silent' }), {
      clock: opts.clock,
      asyncWorker: false,
    });
    const app = await buildApp(runtime.deps, { logger: false });
    return { app, runtime };
  };
  let current = await boot(opts.env);
  // A restart whose start fails leaves nothing running: close() then has nothing more to stop.
  let stopped = false;
  const call: TestApp['call'] = ({ as, site, headers, ...rest }) =>
    current.app.inject({
      ...rest,
      headers: {
        ...(as ? { authorization: `Bearer ${as}` } : {}),
        ...(site ? { 'x-svc-site': site } : {}),
        ...headers,
      },
    });
  const t: TestApp = {
    app: current.app,
    deps: current.runtime.deps,
    call,
    setup: async () => {
      const res = await call({
        method: 'POST',
        url: '/api/v1/setup/complete',
        payload: { siteId: 'main', siteName: 'Main', ...ADMIN },
      });
      if (res.statusCode !== 201) throw new Error(`setup failed: ${res.body}`);
      return res.json().data.token as string;
    },
    restart: async (env) => {
      if (!stopped) {
        await current.app.close();
        await current.runtime.stop();
        stopped = true;
      }
      current = await boot(env);
      stopped = false;
      t.app = current.app;
      t.deps = current.runtime.deps;
    },
    close: async () => {
      if (!stopped) {
        await current.app.close();
        await current.runtime.stop();
      }
      await database.drop();
      await rm(filesDir, { recursive: true, force: true });
    },
  };
  return t;
}
