import fs from 'node:fs';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import pino from 'pino';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { createDatabase, type Database } from '../../src/adapters/db/create-db.ts';
import { startRuntime, type Runtime } from '../../src/runtime.ts';
import { ADMIN } from '../setup/app.ts';

/**
 * The database work of a request, counted exactly by PostgreSQL (timings are noise in CI, statement counts are not):
 * a database of the test's own logs every statement (`log_statement = 'all'`), and the lines of the server log that
 * name it are counted. A change that adds per-request, per-write or polling work fails here; a slice that needs more
 * says so below, with its reason.
 */
const url = process.env.TEST_DATABASE_URL;
const LOG = process.env.TEST_PG_LOG ?? '/var/log/postgresql/postgresql-15-main.log';
const readable = (() => {
  try {
    fs.accessSync(LOG, fs.constants.R_OK);
    return true;
  } catch {
    return false;
  }
})();
if (!url || !readable)
  console.info(`statement budget skipped: it needs TEST_DATABASE_URL and the PostgreSQL log readable at ${LOG}`);

/** What one request may cost, in statements. */
const BUDGET = {
  /** A read: the site scope and the one query (the caller, the schema and the access model come from memory). */
  read: 2,
  list: 2,
  /**
   * A create or an update at one connection, inside the request's transaction: begin, the site scope, the append,
   * the inline read models (the collection's change counter, the document, the revision, the search rows), commit.
   */
  write: 8,
  /** The log feed after a burst of writes, per write: one read of the log, and the async read models (site activity). */
  feedPerWrite: 3,
  /** A service with nothing to do, over 10 s: the feed's sweep and the loops' idle rounds, nothing more. */
  idle10s: 100,
};

const N = 20;

describe.skipIf(!url || !readable)('the statement budget', () => {
  const dbName = `svc_statements_${randomBytes(5).toString('hex')}`;
  const base = new URL(url ?? 'postgres://x/y');
  const admin = async (text: string) => {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    await c.query(text);
    await c.end();
  };
  const dbUrl = () => {
    const u = new URL(base);
    u.pathname = `/${dbName}`;
    return u.toString();
  };
  let database: Database;
  let config: ReturnType<typeof loadConfig>;
  let runtime: Runtime;
  let app: FastifyInstance;
  let headers: Record<string, string>;
  let id: string;

  const logSize = () => fs.statSync(LOG).size;
  const countSince = (from: number): number => {
    const fd = fs.openSync(LOG, 'r');
    try {
      const size = fs.fstatSync(fd).size;
      const buf = Buffer.alloc(Math.max(0, size - from));
      fs.readSync(fd, buf, 0, buf.length, from);
      return buf
        .toString('utf8')
        .split('\n')
        .filter((l) => l.includes(`@${dbName} `) && /LOG: {2}(statement|execute [^:]*):/.test(l)).length;
    } finally {
      fs.closeSync(fd);
    }
  };
  /** Statements logged while `work` runs, once the log has caught up with them. */
  const counted = async (work: () => Promise<void>): Promise<number> => {
    const from = logSize();
    await work();
    await new Promise((r) => setTimeout(r, 300));
    const n = countSince(from);
    if (process.env.SHOW_STATEMENTS) console.info(`statements: ${n}`);
    return n;
  };

  beforeAll(async () => {
    await admin(`create database ${dbName}`);
    await admin(`alter database ${dbName} set log_statement = 'all'`);
    database = await createDatabase({ kind: 'postgres', url: dbUrl(), poolSize: 4 });
    config = loadConfig({
      LOG_LEVEL: 'silent',
      JWT_SECRET: 'test-secret-test-secret-test-secret-123',
      SVC_PRESSURE_LIMITER_ENABLED: 'false',
      SVC_RATE_LIMIT_DISABLED: 'true',
    });
    // The log feed runs only when drained, so that a request's window holds the request's statements alone.
    runtime = await startRuntime(config, database, pino({ level: 'silent' }), { asyncWorker: false });
    app = await buildApp(runtime.deps, { logger: false });
    const setup = await app.inject({
      method: 'POST',
      url: '/api/v1/setup/complete',
      payload: { siteId: 'main', siteName: 'Main', ...ADMIN },
    });
    expect(setup.statusCode, setup.body).toBe(201);
    headers = { authorization: `Bearer ${setup.json().data.token as string}`, 'x-svc-site': 'main' };
    const post = async (path: string, payload: Record<string, unknown>) => {
      const res = await app.inject({ method: 'POST', url: path, headers, payload });
      expect(res.statusCode, res.body).toBe(201);
      return res;
    };
    await post('/api/v1/collections', { name: 'articles' });
    await post('/api/v1/fields/articles', { field: 'title', type: 'string' });
    await post('/api/v1/fields/articles', { field: 'views', type: 'integer' });
    const first = await app.inject({
      method: 'POST',
      url: '/api/v1/items/articles',
      headers,
      payload: { title: 'first', views: 1 },
    });
    expect(first.statusCode, first.body).toBe(201);
    id = first.json().data.id as string;
  }, 120_000);

  afterAll(async () => {
    await app?.close();
    await runtime?.stop();
    await database?.close();
    if (url) await admin(`drop database if exists ${dbName} with (force)`);
  });

  /** `n` requests one after the other (one connection's worth of load), each answered with `status`. */
  const send = async (n: number, req: () => InjectOptions, status: number) => {
    for (let i = 0; i < n; i++) {
      const res = await app.inject(req());
      expect(res.statusCode, res.body).toBe(status);
    }
  };
  const read = () => ({ method: 'GET' as const, url: `/api/v1/items/articles/${id}`, headers });
  const list = () => ({ method: 'GET' as const, url: '/api/v1/items/articles?limit=25', headers });
  let n = 0;
  const create = () => ({
    method: 'POST' as const,
    url: '/api/v1/items/articles',
    headers,
    payload: { title: `article ${n++}`, views: n },
  });
  const update = () => ({
    method: 'PATCH' as const,
    url: `/api/v1/items/articles/${id}`,
    headers,
    payload: { title: `title ${n++}` },
  });

  it(`reads by id and lists with at most ${BUDGET.read} statements each`, async () => {
    await send(3, read, 200); // warm: the caller, the schema and the access model in memory
    await send(3, list, 200);
    expect((await counted(() => send(N, read, 200))) / N).toBeLessThanOrEqual(BUDGET.read);
    expect((await counted(() => send(N, list, 200))) / N).toBeLessThanOrEqual(BUDGET.list);
  });

  it(`creates and updates with at most ${BUDGET.write} statements each, the log feed batching the rest`, async () => {
    await send(3, create, 201);
    await send(3, update, 200);
    await runtime.deps.drainReactors();
    await runtime.deps.drainAsync();
    expect((await counted(() => send(N, create, 201))) / N).toBeLessThanOrEqual(BUDGET.write);
    expect((await counted(() => send(N, update, 200))) / N).toBeLessThanOrEqual(BUDGET.write);
    const feed = await counted(async () => {
      await runtime.deps.drainReactors();
      await runtime.deps.drainAsync();
    });
    expect(feed / (2 * N)).toBeLessThanOrEqual(BUDGET.feedPerWrite);
  });

  it(`sends fewer than ${BUDGET.idle10s} statements in 10 s when nothing happens`, async () => {
    // The whole node now, as in production: the log feed and every loop run.
    await app.close();
    await runtime.stop();
    runtime = await startRuntime(config, database, pino({ level: 'silent' }));
    app = await buildApp(runtime.deps, { logger: false });
    await new Promise((r) => setTimeout(r, 1000));
    expect(await counted(() => new Promise((r) => setTimeout(r, 10_000)))).toBeLessThan(BUDGET.idle10s);
  }, 30_000);
});
