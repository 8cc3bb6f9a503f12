import pino from 'pino';
import { loadConfig } from '../src/config.ts';
import { createDatabase } from '../src/adapters/db/create-db.ts';
import { startRuntime } from '../src/runtime.ts';
import { buildApp } from '../src/app.ts';
import { runSetup } from '../src/features/setup/run-setup.process.ts';

/**
 * Sign-up's two answers, timed through the HTTP API in process: an address with an account and a new one must cost
 * the same (issue 34, point 10), so nobody tells them apart by the clock. Alternates the two, N of each, and prints
 * the medians and their difference. `npx tsx bench/signup.ts` (embedded PGlite; BENCH_PG_URL for PostgreSQL).
 */
const N = Number(process.env.N ?? 60);
const PG_URL = process.env.BENCH_PG_URL;
const PASSWORD = 'Bench-signup-4455!';

const config = loadConfig({
  LOG_LEVEL: 'silent',
  JWT_SECRET: 'bench-secret-bench-secret-bench-secret',
  SVC_RATE_LIMIT_DISABLED: 'true',
  SVC_PRESSURE_LIMITER_ENABLED: 'false',
  SVC_REGISTER_MAX_PER_IP: '100000',
  ...(PG_URL ? { DATABASE_URL: PG_URL } : {}),
});
const database = PG_URL
  ? await createDatabase({ kind: 'postgres', url: PG_URL, schema: `bench_signup_${Date.now()}`, poolSize: 4 })
  : await createDatabase({ kind: 'pglite', dataDir: null });
const runtime = await startRuntime(config, database, pino({ level: 'silent' }), { asyncWorker: false });
const deps = runtime.deps;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
try {
  const meta = {
    siteId: '_system',
    actor: { type: 'system' as const, id: 'bench' },
    correlationId: 'bench',
    causationId: null,
    requestId: null,
    occurredAt: new Date().toISOString(),
  };
  await runSetup(deps, { siteId: 'main', siteName: 'Main', email: 'known@example.com', password: PASSWORD }, meta);
  const app = await buildApp(deps, { logger: false });
  const login = await app.inject({
    method: 'POST',
    url: '/api/v1/auth/login',
    payload: { email: 'known@example.com', password: PASSWORD },
  });
  const token = login.json().data.token as string;
  await app.inject({
    method: 'PATCH',
    url: '/api/v1/site',
    headers: { authorization: `Bearer ${token}`, 'x-svc-site': 'main' },
    payload: { settings: { public_registration: true } },
  });
  const signUp = async (email: string) => {
    const t0 = process.hrtime.bigint();
    const res = await app.inject({
      method: 'POST',
      url: '/api/v1/auth/register',
      headers: { 'x-svc-site': 'main' },
      payload: { email, password: PASSWORD },
    });
    if (res.statusCode !== 202) throw new Error(`sign-up answered ${res.statusCode}: ${res.body}`);
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    // The work the answer left for later (the account, or the attempt; the mail), outside the timing, so it does not
    // load the next request.
    await deps.afterAnswer.settled();
    return ms;
  };
  for (let i = 0; i < 5; i++) {
    await signUp(`warm-${i}@example.com`);
    await signUp('known@example.com');
  }
  const known: number[] = [];
  const fresh: number[] = [];
  for (let i = 0; i < N; i++) {
    known.push(await signUp('known@example.com'));
    fresh.push(await signUp(`new-${i}@example.com`));
  }
  const [k, f] = [median(known), median(fresh)];
  console.log(
    `sign-up, ${N} of each, ${PG_URL ? 'PostgreSQL' : 'PGlite'}: existing address median ${k.toFixed(1)} ms,`,
  );
  console.log(
    `new address median ${f.toFixed(1)} ms, difference ${(f - k).toFixed(1)} ms (${((f / k - 1) * 100).toFixed(0)}%)`,
  );
  await app.close();
} finally {
  await runtime.stop();
  await database.close();
}
