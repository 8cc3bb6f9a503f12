import autocannon from 'autocannon';
import { benchServer } from './server.ts';

/**
 * Item history at scale (issue budget: under 50 ms p99): one item with REVISIONS revisions written through the
 * API, then the revisions list page, an `asOf` read in the middle of the history, and revert, each loaded with
 * autocannon at 1 and 10 connections (CONNECTIONS). PostgreSQL only. `npm run bench:history`.
 */
const REVISIONS = Number(process.env.REVISIONS ?? 10_000);
const DURATION = Number(process.env.DURATION ?? 10);
/** Connection counts to load each scenario with: 1 is one client's latency, 10 saturates two cores. */
const CONNECTIONS = (process.env.CONNECTIONS ?? '1,10').split(',').map(Number);
const { server, login, close } = await benchServer('svc_bench_history');
try {
  const token = await login();
  const headers = { authorization: `Bearer ${token}`, 'x-svc-site': 'bench', 'content-type': 'application/json' };
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${server.url}${path}`, { method, headers, body: body ? JSON.stringify(body) : undefined });
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as { data: unknown; meta?: Record<string, unknown> };
  };
  await call('POST', '/api/v1/collections', { name: 'articles' });
  await call('POST', '/api/v1/fields/articles', { field: 'title', type: 'string' });
  await call('POST', '/api/v1/fields/articles', { field: 'views', type: 'integer' });
  await call('POST', '/api/v1/items/articles', { id: 'hot', title: 'Hot', views: 0 });
  const t0 = Date.now();
  let n = 0;
  await autocannon({
    url: server.url,
    connections: 10,
    amount: REVISIONS - 1,
    requests: [
      {
        method: 'PATCH',
        path: '/api/v1/items/articles/hot',
        headers,
        setupRequest: (req) => ({ ...req, body: JSON.stringify({ views: ++n }) }),
      },
    ],
  });
  const writeMs = Date.now() - t0;
  const revs = (await call('GET', '/api/v1/items/articles/hot/revisions?limit=1')).meta as { total: number };
  const middle = (
    (await call('GET', `/api/v1/items/articles/hot/revisions?limit=1&offset=${Math.floor(revs.total / 2)}`)).data as {
      id: string;
      timestamp: string;
    }[]
  )[0]!;
  const scenarios: { name: string; method: 'GET' | 'POST'; path: string; body?: string }[] = [
    { name: 'revisions page (limit 25, newest first)', method: 'GET', path: '/api/v1/items/articles/hot/revisions' },
    {
      name: 'revisions page deep in the history (offset 5000)',
      method: 'GET',
      path: '/api/v1/items/articles/hot/revisions?offset=5000',
    },
    {
      name: 'asOf read in the middle of the history',
      method: 'GET',
      path: `/api/v1/items/articles/hot?asOf=${encodeURIComponent(middle.timestamp)}`,
    },
    {
      name: 'revert to a revision in the middle',
      method: 'POST',
      path: '/api/v1/items/articles/hot/revert',
      body: JSON.stringify({ revisionId: middle.id }),
    },
  ];
  const rows = [];
  for (const s of scenarios) {
    const request = { method: s.method, path: s.path, body: s.body, headers };
    await autocannon({ url: server.url, connections: 10, duration: 2, requests: [request] });
    for (const connections of CONNECTIONS) {
      const r = await autocannon({ url: server.url, connections, duration: DURATION, requests: [request] });
      rows.push(
        `| ${s.name} | ${connections} | ${Math.round(r.requests.mean)} | ${r.latency.p50} | ${r.latency.p99} | ${r.non2xx} |`,
      );
    }
  }
  console.log(
    [
      `Item with ${revs.total} revisions (written through the API in ${writeMs} ms), PostgreSQL, ${DURATION} s measured per row.`,
      '',
      '| scenario | connections | req/s | p50 ms | p99 ms | non-2xx |',
      '| --- | --- | --- | --- | --- | --- |',
      ...rows,
    ].join('\n'),
  );
} finally {
  await close();
}
