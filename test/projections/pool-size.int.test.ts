import { randomBytes } from 'node:crypto';
import pg from 'pg';
import pino from 'pino';
import { sql } from 'kysely';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { createDatabase, type Database } from '../../src/adapters/db/create-db.ts';
import { databaseFromConfig } from '../../src/adapters/load.ts';
import { startRuntime, type Runtime } from '../../src/runtime.ts';
import { ADMIN } from '../setup/app.ts';

const url = process.env.TEST_DATABASE_URL;
if (!url) console.info('pool-size test skipped: it needs TEST_DATABASE_URL (PGlite has one connection)');

/** The smallest pool the service accepts (MIN_POOL_SIZE, checked by checkPoolSize in src/adapters/db/create-db.ts). */
const SMALLEST = 2;
const LEADERS = [':log-feed'];

/** Rejects when the promise has not settled in `ms`: a request that waits for a connection forever fails the test. */
const within = <T>(ms: number, p: Promise<T>): Promise<T> =>
  Promise.race([p, new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`no answer in ${ms} ms`)), ms))]);

describe.skipIf(!url)('the serving pool', () => {
  const schema = `t_${randomBytes(6).toString('hex')}`;
  let database: Database;
  let runtime: Runtime;
  let app: FastifyInstance;
  beforeAll(async () => {
    database = await createDatabase({ kind: 'postgres', url: url!, schema, poolSize: SMALLEST });
    const config = loadConfig({
      LOG_LEVEL: 'silent',
      JWT_SECRET: 'test-secret-test-secret-test-secret-123',
      SVC_PRESSURE_LIMITER_ENABLED: 'false',
      SVC_RATE_LIMIT_DISABLED: 'true',
    });
    // The whole node: the async projection worker, the reactors and the loops lead as in production.
    runtime = await startRuntime(config, database, pino({ level: 'silent' }));
    app = await buildApp(runtime.deps, { logger: false });
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    await runtime?.stop();
    await database?.close();
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    await c.query(`drop schema if exists "${schema}" cascade`);
    await c.end();
  });

  const held = async () =>
    (
      await sql<{ n: number }>`select count(*)::int as n from pg_locks where locktype = 'advisory' and granted
        and objid in (${sql.join(LEADERS.map((k) => sql`(hashtext(${schema} || ${k}))::oid`))})`.execute(database.db)
    ).rows[0]!.n;

  it(`serves requests with ${SMALLEST} pooled connections while the leaders hold their locks`, async () => {
    let leaders = await within(20_000, held());
    for (let i = 0; i < 200 && leaders < LEADERS.length; i++) {
      await new Promise((r) => setTimeout(r, 25));
      leaders = await within(20_000, held());
    }
    expect(leaders).toBe(LEADERS.length);
    const setup = await within(
      30_000,
      app.inject({
        method: 'POST',
        url: '/api/v1/setup/complete',
        payload: { siteId: 'main', siteName: 'Main', ...ADMIN },
      }),
    );
    expect(setup.statusCode, setup.body).toBe(201);
    const token = setup.json().data.token as string;
    const headers = { authorization: `Bearer ${token}`, 'x-svc-site': 'main' };
    // Several at once: more requests than connections, beside the leaders' work.
    const answers = await within(
      30_000,
      Promise.all([
        app.inject({ method: 'POST', url: '/api/v1/sites', headers, payload: { id: 'other', name: 'Other' } }),
        ...[...Array(6)].map(() => app.inject({ method: 'GET', url: '/api/v1/site', headers })),
      ]),
    );
    expect(answers.map((a) => a.statusCode)).toEqual([201, 200, 200, 200, 200, 200, 200]);
    expect(await held()).toBe(LEADERS.length);
  }, 120_000);

  it(`refuses to start with fewer than ${SMALLEST} pooled connections, saying why`, async () => {
    const config = loadConfig({ DATABASE_URL: url, DATABASE_POOL_SIZE: String(SMALLEST - 1) });
    await expect(databaseFromConfig(config)).rejects.toThrow(
      /DATABASE_POOL_SIZE is 1: the service needs at least 2 connections/,
    );
  });
});
