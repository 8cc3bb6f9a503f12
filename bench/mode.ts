import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startServer } from '../test/support/server-process.ts';
import { startFloor } from './floor.ts';
import { measure, rssMb, type LoadConfig, type Measured } from './load.ts';
import type { ModeRun } from './report.ts';
import { SCENARIOS } from './scenarios.ts';
import { seed } from './seed.ts';

/** One run of ours in one mode (embedded or PostgreSQL), configured like the Directus peer benchmark. */
const env = process.env;
const ONLY = env.BENCH_SCENARIOS?.split(',');
export const SEED_N = Number(env.SEED_N ?? 100_000);
export const LOAD: LoadConfig = {
  connections: Number(env.CONNECTIONS ?? 10),
  warmup: Number(env.WARMUP ?? 2),
  duration: Number(env.DURATION ?? 10),
};
const PG_URL = env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432';
const PG_DB = env.BENCH_DB ?? 'svc_bench';
const SITE = 'bench';
const ADMIN = { email: 'bench@example.com', password: 'Load-test-pass-1234!' };

async function pgAdmin<T>(f: (c: pg.Client) => Promise<T>, db = 'postgres'): Promise<T> {
  const c = new pg.Client({ connectionString: `${PG_URL}/${db}` });
  await c.connect();
  try {
    return await f(c);
  } finally {
    await c.end();
  }
}

interface Store {
  env: Record<string, string>;
  pgVersion: string | null;
  drop: () => Promise<void>;
}

/** A fresh store for one mode: a new database, or a PGlite directory; `drop` removes it again. */
async function freshStore(mode: string): Promise<Store> {
  if (mode === 'postgres') {
    const version = await pgAdmin(async (c) => {
      // Without force: a database still in use by another run fails here instead of being pulled from under it.
      await c.query(`drop database if exists ${PG_DB}`);
      await c.query(`create database ${PG_DB}`);
      return (await c.query<{ server_version: string }>('show server_version')).rows[0]!.server_version;
    });
    const drop = () => pgAdmin((c) => c.query(`drop database if exists ${PG_DB} with (force)`)).then(() => undefined);
    return { env: { DATABASE_URL: `${PG_URL}/${PG_DB}` }, pgVersion: version, drop };
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-'));
  const drop = async () => fs.rmSync(dir, { recursive: true, force: true });
  return { env: { SVC_DATA_DIR: dir, DATABASE_URL: '' }, pgVersion: null, drop };
}

async function login(url: string): Promise<string> {
  const res = await fetch(`${url}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(ADMIN),
  });
  if (!res.ok) throw new Error(`login: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { data: { token: string } }).data.token;
}

/**
 * Starts the service on a fresh store, seeds it, measures each scenario with autocannon, then (PostgreSQL) stops it
 * and measures the floor (bench/floor-server.ts) on the same database, so nothing of ours runs beside the floor.
 */
export async function runMode(mode: string): Promise<ModeRun> {
  const store = await freshStore(mode);
  const server = await startServer({
    SVC_ADMIN_EMAIL: ADMIN.email,
    SVC_ADMIN_PASSWORD: ADMIN.password,
    SVC_SITE_ID: SITE,
    // Request logging (info) costs CPU per request: BENCH_LOG_LEVEL=info measures it (see docs/benchmarks.md).
    LOG_LEVEL: env.BENCH_LOG_LEVEL ?? 'warn',
    ...store.env,
  });
  const pid = server.child.pid!;
  try {
    const token = await login(server.url);
    const seeded = await seed(server.url, token, SITE, SEED_N);
    console.error(`[bench] ${mode}: seeded ${SEED_N} articles in ${seeded.ms} ms`);
    // Fresh planner statistics, as autovacuum gathers them shortly after a bulk load.
    if (mode === 'postgres') await pgAdmin((c) => c.query('analyze'), PG_DB);
    const target = { url: server.url, pid, token, site: SITE, sampleId: seeded.sampleId };
    const results: Record<string, Measured> = {};
    for (const s of SCENARIOS.filter((x) => !ONLY || ONLY.includes(x.key))) {
      results[s.key] = await measure(target, s, LOAD);
      console.error(`[bench] ${mode} ${s.key}: ${JSON.stringify(results[s.key])}`);
    }
    const rss = rssMb(pid);
    server.child.kill('SIGTERM');
    await server.exited;
    // The floor: a bare fastify + pg server reading the same row, on the same database, with ours stopped.
    const c = SCENARIOS.find((x) => x.key === 'c')!;
    if (mode === 'postgres' && results.c) {
      const floor = await startFloor(`${PG_URL}/${PG_DB}`);
      try {
        results.floor = await measure({ ...target, url: floor.url, pid: floor.pid }, c, LOAD);
        console.error(`[bench] floor c: ${JSON.stringify(results.floor)}`);
      } finally {
        await floor.stop();
      }
    }
    return { mode, pgVersion: store.pgVersion, rssMb: rss, seed: seeded, results };
  } finally {
    if (server.child.exitCode === null) {
      server.child.kill('SIGTERM');
      await server.exited;
    }
    await store.drop();
  }
}
