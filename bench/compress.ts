import http from 'node:http';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import autocannon from 'autocannon';
import { cpuSeconds } from './load.ts';
import { seed } from './seed.ts';
import { benchServer } from './server.ts';

/**
 * Compression (issue 35, point 3): a 25-item list (scenario a's, on the same rows) and the OpenAPI document, each loaded without `Accept-Encoding`,
 * with `br, gzip` and with `gzip`, on PostgreSQL: body bytes on the wire (one raw request), req/s, p50/p99 and the
 * server's CPU per request. Then the two bodies compressed in process at several qualities (bytes, ms per compress),
 * which is what chose br 4 and gzip 6. `npx tsx bench/compress.ts`; DURATION, CONNECTIONS, SEED_N change it.
 */
const DURATION = Number(process.env.DURATION ?? 10);
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 10);
const SEED_N = Number(process.env.SEED_N ?? 500);
const ENCODINGS = [
  ['none', undefined],
  ['br, gzip', 'br, gzip'],
  ['gzip', 'gzip'],
] as const;

/** One answer as it crosses the wire (node:http decodes nothing): its body bytes and Content-Encoding. */
const wire = (url: string, headers: Record<string, string>) =>
  new Promise<{ body: Buffer; encoding: string }>((resolve, reject) => {
    http
      .get(url, { headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ body: Buffer.concat(chunks), encoding: String(res.headers['content-encoding'] ?? 'none') }),
        );
      })
      .on('error', reject);
  });

const { server, login, close } = await benchServer('svc_bench_compress');
const rows: string[] = [];
const bodies = new Map<string, Buffer>();
try {
  const token = await login();
  const auth = { authorization: `Bearer ${token}`, 'x-svc-site': 'bench' };
  await seed(server.url, token, 'bench', SEED_N);
  const targets = [
    { name: '25-item list', path: '/api/v1/items/articles?limit=25', headers: auth },
    { name: 'OpenAPI document', path: '/api/v1/openapi.json', headers: {} },
  ];
  for (const target of targets) {
    for (const [label, accept] of ENCODINGS) {
      const headers: Record<string, string> = { ...target.headers, ...(accept ? { 'accept-encoding': accept } : {}) };
      const one = await wire(`${server.url}${target.path}`, headers);
      if (!accept) bodies.set(target.name, one.body);
      const fire = (duration: number) =>
        autocannon({
          url: server.url,
          connections: CONNECTIONS,
          duration,
          requests: [{ method: 'GET', path: target.path, headers }],
        });
      await fire(2);
      const cpu0 = cpuSeconds(server.child.pid!);
      const r = await fire(DURATION);
      const cpuMs = ((cpuSeconds(server.child.pid!) - cpu0) * 1000) / Math.max(1, r.requests.total);
      rows.push(
        `| ${target.name} | ${label} | ${one.encoding} | ${one.body.length} | ${Math.round(r.requests.mean)} | ` +
          `${r.latency.p50} / ${r.latency.p99} | ${cpuMs.toFixed(2)} | ${r.non2xx} |`,
      );
    }
  }
} finally {
  await close();
}

const timed = (f: () => Buffer) => {
  const n = 20;
  f();
  const t0 = process.hrtime.bigint();
  let out: Buffer = Buffer.alloc(0);
  for (let i = 0; i < n; i++) out = f();
  return { bytes: out.length, ms: Number(process.hrtime.bigint() - t0) / 1e6 / n };
};
const levels: [string, (b: Buffer) => Buffer][] = [
  ...[1, 4, 5, 6, 9, 11].map(
    (q) =>
      [`br ${q}`, (b: Buffer) => brotliCompressSync(b, { params: { [constants.BROTLI_PARAM_QUALITY]: q } })] as [
        string,
        (b: Buffer) => Buffer,
      ],
  ),
  ...[1, 6, 9].map((l) => [`gzip ${l}`, (b: Buffer) => gzipSync(b, { level: l })] as [string, (b: Buffer) => Buffer]),
];
const levelRows = levels.map(([name, f]) => {
  const cells = [...bodies.values()].map((b) => timed(() => f(b)));
  return `| ${name} | ${cells.map((c) => `${c.bytes} B, ${c.ms.toFixed(2)} ms`).join(' | ')} |`;
});

console.log(
  [
    `Compression, PostgreSQL, ${SEED_N} articles, ${CONNECTIONS} connections, ${DURATION} s per row.`,
    '',
    '| answer | Accept-Encoding | sent as | body bytes | req/s | p50 / p99 ms | server CPU ms/req | non-2xx |',
    '| --- | --- | --- | --- | --- | --- | --- | --- |',
    ...rows,
    '',
    `In process, per compress (identity: ${[...bodies].map(([k, b]) => `${k} ${b.length} B`).join(', ')}):`,
    '',
    `| quality | ${[...bodies.keys()].join(' | ')} |`,
    `| --- | ${[...bodies.keys()].map(() => '---').join(' | ')} |`,
    ...levelRows,
  ].join('\n'),
);
