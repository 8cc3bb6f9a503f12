import pg from 'pg';
import { benchServer } from './server.ts';
import { measure, type Target } from './load.ts';
import { SCENARIOS } from './scenarios.ts';
import { seed } from './seed.ts';

/**
 * Row-level permissions cost: scenario b (filter status + views, sort -views, limit 25) as the admin and as a
 * user whose read rule carries conditions (`status _neq archived`, compiled into the same SQL), alternated
 * back to back on one server. Budget: the conditioned user within 20 % of the admin. PostgreSQL.
 * `npm run bench:access` (N articles, default 20 000; ROUNDS alternations, default 2).
 */
const N = Number(process.env.N ?? 20_000);
const ROUNDS = Number(process.env.ROUNDS ?? 2);
const DURATION = Number(process.env.DURATION ?? 10);
const USER = { email: 'reader@example.com', password: 'Conditioned-pass-1234!' };
const DB = 'svc_bench_access';
const { server, login, close, url: dbUrl } = await benchServer(DB);
try {
  const token = await login();
  const seeded = await seed(server.url, token, 'bench', N);
  // Fresh planner statistics, as autovacuum gathers them shortly after a bulk load (bench/run.ts does the same).
  const stats = new pg.Client({ connectionString: dbUrl });
  await stats.connect();
  await stats.query('analyze');
  if (process.env.SLOW_MS)
    await stats.query(`alter database ${DB} set log_min_duration_statement = ${Number(process.env.SLOW_MS)}`);
  await stats.end();
  const headers = { authorization: `Bearer ${token}`, 'x-svc-site': 'bench', 'content-type': 'application/json' };
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${server.url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
    if (!res.ok) throw new Error(`POST ${path}: ${res.status} ${await res.text()}`);
    return ((await res.json()) as { data: { id: string } }).data;
  };
  const role = await post('/api/v1/roles', { name: 'Reader' });
  const policy = await post('/api/v1/policies', { name: 'Not archived' });
  await post(`/api/v1/policies/${policy.id}/permissions`, {
    collection: 'articles',
    action: 'read',
    conditions: { status: { _neq: 'archived' } },
  });
  await post(`/api/v1/policies/${policy.id}/attach`, { role: role.id });
  await post('/api/v1/users', { ...USER, roleId: role.id });
  const userToken = await login(USER);
  const b = SCENARIOS.find((s) => s.key === 'b')!;
  const pid = server.child.pid!;
  const target = (t: string): Target => ({ url: server.url, pid, token: t, site: 'bench', sampleId: seeded.sampleId });
  const cfg = { connections: Number(process.env.CONNECTIONS ?? 10), warmup: 3, duration: DURATION };
  const rows: string[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    for (const [who, t] of [
      ['admin', token],
      ['reader (conditions rule)', userToken],
    ] as const) {
      const m = await measure(target(t), b, cfg);
      rows.push(
        `| ${round} | ${who} | ${m.rps} | ${m.p50_ms} | ${m.p99_ms} | ${m.server_cpu_ms_per_req} | ${m.non2xx} |`,
      );
    }
  }
  console.log(
    [
      `Scenario b over ${N} articles, PostgreSQL, 10 connections, ${DURATION} s per row, alternated.`,
      '',
      '| round | caller | req/s | p50 ms | p99 ms | server CPU ms/req | non-2xx |',
      '| --- | --- | --- | --- | --- | --- | --- |',
      ...rows,
    ].join('\n'),
  );
} finally {
  await close();
}
