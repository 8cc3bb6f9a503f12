import autocannon from 'autocannon';
import { benchServer } from './server.ts';

/**
 * Public page delivery (issue budget: over 2 000 req/s with caching, PostgreSQL): a published page referencing
 * ITEMS published articles, delivered with the response cache on (default TTL) and off (SVC_DELIVER_CACHE_TTL=0,
 * every request resolves the page and its items), a conditional GET answered 304, and an unknown slug answered
 * from the negative cache. The delivery throttle is off. `npm run bench:deliver`.
 */
const ITEMS = Number(process.env.ITEMS ?? 20);
const DURATION = Number(process.env.DURATION ?? 10);
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 10);
const PATH = '/api/v1/deliver/page/bench/home';

async function run(label: string, env: Record<string, string>) {
  const { server, login, close } = await benchServer('svc_bench_deliver', { SVC_DELIVER_RATE_LIMIT: '0', ...env });
  try {
    const token = await login();
    const headers = { authorization: `Bearer ${token}`, 'x-svc-site': 'bench', 'content-type': 'application/json' };
    const post = async (path: string, body: unknown) => {
      const res = await fetch(`${server.url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
      if (!res.ok) throw new Error(`POST ${path}: ${res.status} ${await res.text()}`);
    };
    await post('/api/v1/collections', { name: 'articles' });
    await post('/api/v1/fields/articles', { field: 'title', type: 'string' });
    await post('/api/v1/fields/articles', { field: 'body', type: 'text' });
    const ids = Array.from({ length: ITEMS }, (_, i) => `a${i}`);
    for (const id of ids)
      await post('/api/v1/items/articles', { id, title: `Article ${id}`, body: 'x'.repeat(500), status: 'published' });
    const blocks = ids.map((itemId) => ({ type: 'item', collection: 'articles', itemId }));
    await post('/api/v1/pages', {
      slug: 'home',
      title: 'Home',
      status: 'published',
      layoutConfig: {
        rows: [
          {
            columns: [
              { width: 8, blocks: blocks.slice(0, 10) },
              { width: 4, blocks: blocks.slice(10) },
            ],
          },
        ],
      },
    });
    const first = await fetch(`${server.url}${PATH}`);
    const body = (await first.json()) as { data: { items: Record<string, unknown> } };
    const resolved = Object.values(body.data.items).filter(Boolean).length;
    if (resolved !== ITEMS) throw new Error(`expected ${ITEMS} resolved items, got ${resolved}`);
    const etag = first.headers.get('etag')!;
    const scenarios = [
      { name: `page with ${ITEMS} items (${label})`, path: PATH, headers: {} },
      ...(label === 'cache on'
        ? [
            { name: 'conditional GET → 304', path: PATH, headers: { 'if-none-match': etag } },
            {
              name: 'unknown slug → 404 (negative cache)',
              path: '/api/v1/deliver/page/bench/nothing-here',
              headers: {},
            },
          ]
        : []),
    ];
    const rows: string[] = [];
    for (const s of scenarios) {
      const fire = (duration: number) =>
        autocannon({
          url: server.url,
          connections: CONNECTIONS,
          duration,
          requests: [{ method: 'GET', path: s.path, headers: s.headers }],
        });
      await fire(3);
      const r = await fire(DURATION);
      rows.push(`| ${s.name} | ${Math.round(r.requests.mean)} | ${r.latency.p50} | ${r.latency.p99} | ${r.non2xx} |`);
    }
    return rows;
  } finally {
    await close();
  }
}

const rows = [...(await run('cache on', {})), ...(await run('cache off', { SVC_DELIVER_CACHE_TTL: '0' }))];
console.log(
  [
    `Delivery, PostgreSQL, ${CONNECTIONS} connections, ${DURATION} s per row.`,
    '',
    '| scenario | req/s | p50 ms | p99 ms | non-2xx |',
    '| --- | --- | --- | --- | --- |',
    ...rows,
  ].join('\n'),
);
