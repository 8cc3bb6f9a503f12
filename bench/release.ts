import pg from 'pg';
import { startServer } from '../test/support/server-process.ts';
import { rssMb } from './load.ts';

/**
 * Publishing a release of N items (default 1 000), once all_or_nothing and once best_effort, on PostgreSQL: wall
 * time of the publish request and the server's resident memory before and after. `npm run bench:release`.
 */
const N = Number(process.env.N ?? 1000);
const PG_URL = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432';
const DB = 'svc_bench_release';
const ADMIN = { email: 'bench@example.com', password: 'Load-test-pass-1234!' };

const admin = new pg.Client({ connectionString: `${PG_URL}/postgres` });
await admin.connect();
await admin.query(`drop database if exists ${DB} with (force)`);
await admin.query(`create database ${DB}`);
await admin.end();
const server = await startServer({
  DATABASE_URL: `${PG_URL}/${DB}`,
  SVC_ADMIN_EMAIL: ADMIN.email,
  SVC_ADMIN_PASSWORD: ADMIN.password,
  SVC_SITE_ID: 'bench',
});
try {
  const login = await fetch(`${server.url}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(ADMIN),
  });
  const token = ((await login.json()) as { data: { token: string } }).data.token;
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${server.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        'x-svc-site': 'bench',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as { data: { id: string; status: string } };
  };
  await call('POST', '/api/v1/collections', { name: 'articles' });
  await call('POST', '/api/v1/fields/articles', { field: 'title', type: 'string' });
  const rows: string[] = [];
  for (const mode of ['all_or_nothing', 'best_effort']) {
    const ids = Array.from({ length: N }, (_, i) => `${mode}-${i}`);
    for (let i = 0; i < N; i += 500)
      await call(
        'POST',
        '/api/v1/items/articles',
        ids.slice(i, i + 500).map((id) => ({ id, title: id, status: 'draft' })),
      );
    const rel = await call('POST', '/api/v1/releases', {
      name: mode,
      atomicityMode: mode,
      addItems: ids.map((itemId) => ({ collection: 'articles', itemId, targetStatus: 'published' })),
    });
    const before = rssMb(server.child.pid!);
    const t0 = performance.now();
    const res = await call('POST', `/api/v1/releases/${rel.data.id}/publish`);
    const ms = Math.round(performance.now() - t0);
    rows.push(`| ${mode} | ${N} | ${res.data.status} | ${ms} | ${before} | ${rssMb(server.child.pid!)} |`);
  }
  console.log(
    [
      `Publishing a release, PostgreSQL, ${N} items.`,
      '',
      '| mode | items | status | publish ms | RSS before MB | RSS after MB |',
      '| --- | --- | --- | --- | --- | --- |',
      ...rows,
    ].join('\n'),
  );
} finally {
  server.child.kill('SIGTERM');
  await server.exited;
  const c = new pg.Client({ connectionString: `${PG_URL}/postgres` });
  await c.connect();
  await c.query(`drop database if exists ${DB} with (force)`);
  await c.end();
}
