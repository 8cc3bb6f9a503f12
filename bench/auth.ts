import os from 'node:os';
import { hash, verify } from '@node-rs/argon2';
import pg from 'pg';
import pino from 'pino';
import { loadConfig } from '../src/config.ts';
import { features } from '../src/features/index.ts';
import { ARGON2_OPTIONS } from '../src/features/auth/passwords.ts';
import { createDatabase } from '../src/adapters/db/create-db.ts';
import type { AuthContext } from '../src/kernel/auth/actor.ts';
import { startRuntime } from '../src/runtime.ts';
import { buildApp } from '../src/app.ts';
import { runSetup } from '../src/features/setup/run-setup.process.ts';
import { openSession } from '../src/features/auth/session.commands.ts';
import { findUserByEmail, findUserForToken } from '../projections/users/users.queries.ts';

/**
 * Authentication costs, in process (no HTTP): argon2id hashes and verifications per second with the chosen
 * parameters; the per-request cost of a bearer access token (signature alone, and with the user and session
 * lookup every request makes); and of an API key (cached lookup). `npm run bench:auth`; PostgreSQL with
 * BENCH_PG_URL (a fresh schema), else embedded PGlite.
 */
const N = Number(process.env.N ?? 5000);
const PG_URL = process.env.BENCH_PG_URL;

async function perOp(n: number, fn: () => Promise<unknown>): Promise<{ meanUs: number; p99Us: number }> {
  for (let i = 0; i < Math.min(200, n); i++) await fn();
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = process.hrtime.bigint();
    await fn();
    times.push(Number(process.hrtime.bigint() - t0) / 1000);
  }
  times.sort((a, b) => a - b);
  return {
    meanUs: Math.round(times.reduce((a, b) => a + b, 0) / n),
    p99Us: Math.round(times[Math.floor(n * 0.99)]!),
  };
}

async function argon(): Promise<string[]> {
  const t0 = Date.now();
  const h = await hash('Bench-password-1234!', ARGON2_OPTIONS);
  for (let i = 0; i < 19; i++) await hash('Bench-password-1234!', ARGON2_OPTIONS);
  const seqHash = 20 / ((Date.now() - t0) / 1000);
  const t1 = Date.now();
  await Promise.all(Array.from({ length: 20 }, () => verify(h, 'Bench-password-1234!')));
  const parVerify = 20 / ((Date.now() - t1) / 1000);
  return [
    `argon2id, memoryCost ${ARGON2_OPTIONS.memoryCost} KiB, timeCost ${ARGON2_OPTIONS.timeCost}, parallelism ${ARGON2_OPTIONS.parallelism}:`,
    `${seqHash.toFixed(1)} hashes/s one at a time, ${parVerify.toFixed(1)} verifications/s 20 at once on ${os.cpus().length} cores.`,
  ];
}

const config = loadConfig({
  LOG_LEVEL: 'silent',
  JWT_SECRET: 'bench-secret-bench-secret-bench-secret',
  ...(PG_URL ? { DATABASE_URL: PG_URL } : {}),
});
const schema = `bench_auth_${Date.now()}`;
const database = PG_URL
  ? await createDatabase({ kind: 'postgres', url: PG_URL, schema, poolSize: 4 })
  : await createDatabase({ kind: 'pglite', dataDir: null });
const runtime = await startRuntime(config, database, pino({ level: 'silent' }), { asyncWorker: false });
const deps = runtime.deps;
try {
  const meta = {
    siteId: '_system',
    actor: { type: 'system' as const, id: 'bench' },
    correlationId: 'bench',
    causationId: null,
    requestId: null,
    occurredAt: new Date().toISOString(),
  };
  await runSetup(
    deps,
    { siteId: 'main', siteName: 'Main', email: 'b@example.com', password: 'Bench-password-1234!' },
    meta,
  );
  const user = (await findUserByEmail(deps.db, 'b@example.com'))!;
  const command = { siteId: meta.siteId, actor: meta.actor, now: new Date(), metadata: meta };
  const login = await openSession(deps, command, { user, amr: ['pwd'], client: { userAgent: null, ip: '127.0.0.1' } });
  const chain = features.flatMap((f) => f.authenticators?.(deps) ?? []).sort((a, b) => a.order - b.order);
  const ctx: AuthContext = { siteId: 'main', method: 'GET', path: '/api/v1/site', origin: null };
  const authenticate = async (token: string) => {
    for (const a of chain) if (await a.authenticate(token, ctx)) return;
    throw new Error('refused');
  };
  const lines = [...(await argon()), ''];
  const sig = await perOp(N, () => deps.tokens.verify(login.token));
  const claims = await deps.tokens.verify(login.token);
  const lookup = await perOp(N, () => findUserForToken(deps.db, claims.sub, claims.sid));
  const full = await perOp(N, () => authenticate(login.token));
  const where = PG_URL ? 'PostgreSQL' : 'PGlite';
  lines.push(
    `| step | mean µs | p99 µs |`,
    `| --- | --- | --- |`,
    `| access token, first use: signature, audience, expiry (jose HS256) | ${sig.meanUs} | ${sig.p99Us} |`,
    `| user, memberships and session query (${where}; once per SVC_AUTH_CACHE_MS per user) | ${lookup.meanUs} | ${lookup.p99Us} |`,
    `| access token, every other request: the whole authenticator chain, cached | ${full.meanUs} | ${full.p99Us} |`,
  );
  const app = await buildApp(deps, { logger: false });
  const created = await app.inject({
    method: 'POST',
    url: '/api/v1/api-keys',
    headers: { authorization: `Bearer ${login.token}`, 'x-svc-site': 'main' },
    payload: { name: 'bench', roleKey: 'editor' },
  });
  const key = created.json().data.key as string;
  const keyed = await perOp(N, () => authenticate(key));
  lines.push(`| API key: the whole authenticator chain (lookup cached per node) | ${keyed.meanUs} | ${keyed.p99Us} |`);
  await app.close();
  console.log(lines.join('\n'));
} finally {
  await runtime.stop();
  await database.close();
  if (PG_URL) {
    const c = new pg.Client({ connectionString: PG_URL });
    await c.connect();
    await c.query(`drop schema if exists "${schema}" cascade`);
    await c.end();
  }
}
