import { benchServer } from './server.ts';
import { rssMb } from './load.ts';

/**
 * Publishing a release of N items (default 1 000), once all_or_nothing and once best_effort, on PostgreSQL: wall
 * time of the publish request and the server's resident memory before and after. `npm run bench:release`.
 */
const N = Number(process.env.N ?? 1000);
const DB = 'svc_bench_release';
const { server, login, close } = await benchServer(DB);
try {
  const token = await login();
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
  await close();
}
