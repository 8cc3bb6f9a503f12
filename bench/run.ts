import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';
import { startServer, type ServerProcess } from '../test/support/server-process.ts';

/**
 * Starts the service (embedded and/or PostgreSQL), loads it with autocannon the way the Directus peer
 * benchmark does (10 connections, 2 s warm-up, 10 s measured), and writes docs/benchmarks.md.
 */
const MODES = (process.env.BENCH_MODES ?? 'embedded,postgres').split(',');
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 10);
const DURATION = Number(process.env.DURATION ?? 10);
const WARMUP = Number(process.env.WARMUP ?? 2);
const PG_URL = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432';
const ADMIN = { email: 'bench@example.com', password: 'Load-test-pass-1234!' };

interface Scenario {
  key: string;
  name: string;
  method: 'GET' | 'POST' | 'PATCH';
  path: string;
  body?: () => unknown;
}

/** The peer benchmark's data: the same seeded generator (mulberry32, seed 42) and fields. */
function mulberry32(seed: number) {
  let a = seed;
  return () => {
    a |= 0;
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const WORDS =
  'lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore et dolore magna aliqua'.split(
    ' ',
  );
function articles(n: number) {
  const rand = mulberry32(42);
  const words = (k: number) => Array.from({ length: k }, () => WORDS[Math.floor(rand() * WORDS.length)]).join(' ');
  const base = Date.UTC(2024, 0, 1);
  return Array.from({ length: n }, (_, i) => ({
    title: `Article ${i + 1} ${words(4)}`,
    body: words(60),
    status: ['published', 'draft', 'archived'][Math.floor(rand() * 3)],
    views: Math.floor(rand() * 1000),
    published_at: new Date(base + Math.floor(rand() * 365 * 86400) * 1000).toISOString(),
  }));
}

const SEED_N = Number(process.env.SEED_N ?? 10_000);
let sampleId = '';

let seq = 0;
const SCENARIOS: Scenario[] = [
  { key: 'a', name: 'a GET /items/articles?limit=25', method: 'GET', path: '/api/v1/items/articles?limit=25' },
  {
    key: 'b',
    name: 'b filter status + views, sort -views, limit 25',
    method: 'GET',
    path: '/api/v1/items/articles?filter[status][_eq]=published&filter[views][_gt]=500&sort=-views&limit=25',
  },
  { key: 'c', name: 'c GET /items/articles/<id>', method: 'GET', path: '/api/v1/items/articles/:id' },
  {
    key: 'd',
    name: 'd POST /items/articles',
    method: 'POST',
    path: '/api/v1/items/articles',
    body: () => ({ title: 't', body: 'b', status: 'draft', views: 1, published_at: '2024-06-01T00:00:00.000Z' }),
  },
  {
    key: 'e',
    name: 'e PATCH /items/articles/<id>',
    method: 'PATCH',
    path: '/api/v1/items/articles/:id',
    body: () => ({ views: 777, title: `bench update ${seq++}` }),
  },
  { key: 'site-read', name: 'GET /api/v1/site (read one record)', method: 'GET', path: '/api/v1/site' },
  {
    key: 'site-write',
    name: 'PATCH /api/v1/site (command on one stream)',
    method: 'PATCH',
    path: '/api/v1/site',
    body: () => ({ name: `Bench ${seq++}` }),
  },
  {
    key: 'site-create',
    name: 'POST /api/v1/sites (append to a new stream)',
    method: 'POST',
    path: '/api/v1/sites',
    body: () => ({ id: `b-${process.pid}-${seq++}`, name: 'x' }),
  },
];

const cpuSeconds = (pid: number) => {
  const st = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = st.slice(st.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
};
const rssMb = (pid: number) =>
  Math.round(Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024);

async function load(server: ServerProcess, token: string, s: Scenario, duration: number) {
  const headers = { authorization: `Bearer ${token}`, 'x-svc-site': 'bench', 'content-type': 'application/json' };
  return autocannon({
    url: server.url,
    connections: CONNECTIONS,
    duration,
    requests: [
      {
        method: s.method,
        path: s.path,
        headers,
        setupRequest: (req) => ({ ...req, body: s.body ? JSON.stringify(s.body()) : undefined }),
      },
    ],
  });
}

async function runMode(mode: string) {
  const env: Record<string, string> = {
    SVC_ADMIN_EMAIL: ADMIN.email,
    SVC_ADMIN_PASSWORD: ADMIN.password,
    SVC_SITE_ID: 'bench',
    LOG_LEVEL: 'warn',
  };
  let dropDb = async () => undefined as void;
  let pgVersion: string | null = null;
  if (mode === 'postgres') {
    const admin = new pg.Client({ connectionString: `${PG_URL}/postgres` });
    await admin.connect();
    await admin.query('drop database if exists svc_bench');
    await admin.query('create database svc_bench');
    pgVersion = (await admin.query<{ server_version: string }>('show server_version')).rows[0]!.server_version;
    await admin.end();
    env.DATABASE_URL = `${PG_URL}/svc_bench`;
    dropDb = async () => {
      const c = new pg.Client({ connectionString: `${PG_URL}/postgres` });
      await c.connect();
      await c.query('drop database if exists svc_bench with (force)');
      await c.end();
    };
  } else {
    env.SVC_DATA_DIR = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-'));
    env.DATABASE_URL = '';
  }
  const server = await startServer(env);
  const pid = server.child.pid!;
  try {
    const login = await fetch(`${server.url}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(ADMIN),
    });
    const token = ((await login.json()) as { data: { token: string } }).data.token;
    const seedMs = await seed(server.url, token);
    const results: Record<string, unknown> = {
      seed: { name: `seed ${SEED_N} articles through the API (arrays of 500)`, ms: seedMs },
    };
    const only = process.env.BENCH_SCENARIOS?.split(',');
    for (const s of SCENARIOS.filter((x) => !only || only.includes(x.key))) {
      const probe = await fetch(`${server.url}${s.path.replace(':id', sampleId)}`, {
        method: s.method,
        headers: { authorization: `Bearer ${token}`, 'x-svc-site': 'bench', 'content-type': 'application/json' },
        body: s.body ? JSON.stringify(s.body()) : undefined,
      });
      if (!probe.ok) throw new Error(`${s.key} probe answered ${probe.status}: ${await probe.text()}`);
      await load(server, token, s, WARMUP);
      const cpu0 = cpuSeconds(pid);
      const r = await load(server, token, s, DURATION);
      const cpu = cpuSeconds(pid) - cpu0;
      results[s.key] = {
        name: s.name,
        rps: Math.round(r.requests.mean),
        p50_ms: r.latency.p50,
        p90_ms: r.latency.p90,
        p99_ms: r.latency.p99,
        max_ms: r.latency.max,
        requests: r.requests.total,
        non2xx: r.non2xx,
        conflicts_409: r['4xx'],
        errors: r.errors,
        server_cpu_pct: Math.round((cpu / DURATION) * 100),
        server_cpu_ms_per_req: r.requests.total ? Math.round((cpu * 1000 * 100) / r.requests.total) / 100 : null,
      };
      console.error(`[bench] ${mode} ${s.key}: ${JSON.stringify(results[s.key])}`);
    }
    return { mode, pgVersion, rss_mb_after: rssMb(pid), results };
  } finally {
    server.child.kill('SIGTERM');
    await server.exited;
    await dropDb();
    if (env.SVC_DATA_DIR) fs.rmSync(env.SVC_DATA_DIR, { recursive: true, force: true });
  }
}

async function seed(url: string, token: string): Promise<number> {
  const headers = { authorization: `Bearer ${token}`, 'x-svc-site': 'bench', 'content-type': 'application/json' };
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
    if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as { data: unknown };
  };
  await post('/api/v1/collections', { name: 'articles', icon: 'article' });
  for (const [field, type] of [
    ['title', 'string'],
    ['body', 'text'],
    ['views', 'integer'],
    ['published_at', 'datetime'],
  ]) {
    await post('/api/v1/fields/articles', { field, type });
  }
  const t0 = Date.now();
  const rows = articles(SEED_N);
  for (let i = 0; i < rows.length; i += 500) {
    const { data } = await post('/api/v1/items/articles', rows.slice(i, i + 500));
    const ids = (data as { id: string }[]).map((d) => d.id);
    if (i <= SEED_N / 2 && SEED_N / 2 < i + 500) sampleId = ids[SEED_N / 2 - i]!;
  }
  return Date.now() - t0;
}

function markdown(runs: Awaited<ReturnType<typeof runMode>>[]): string {
  const lines = [
    `Measured ${new Date().toISOString().slice(0, 10)} on ${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GB, Node ${process.version}` +
      (runs.find((r) => r.pgVersion) ? `, PostgreSQL ${runs.find((r) => r.pgVersion)!.pgVersion}` : '') +
      `. autocannon, ${CONNECTIONS} connections, ${WARMUP} s warm-up, ${DURATION} s measured.`,
    '',
    '| mode | scenario | req/s | p50 ms | p99 ms | non-2xx (409) | server CPU ms/req |',
    '| --- | --- | --- | --- | --- | --- | --- |',
  ];
  for (const run of runs) {
    for (const r of Object.values(run.results) as Record<string, unknown>[]) {
      if ('ms' in r) {
        lines.push(`| ${run.mode} | ${r.name} | ${r.ms} ms | | | | |`);
        continue;
      }
      lines.push(
        `| ${run.mode} | ${r.name} | ${r.rps} | ${r.p50_ms} | ${r.p99_ms} | ${r.non2xx} (${r.conflicts_409}) | ${r.server_cpu_ms_per_req} |`,
      );
    }
    lines.push(`| ${run.mode} | server RSS after the run | ${run.rss_mb_after} MB | | | | |`);
  }
  return lines.join('\n');
}

function writeSection(file: string, marker: string, body: string): void {
  const text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '# Benchmarks\n';
  const open = `<!-- ${marker} -->`;
  const close = `<!-- /${marker} -->`;
  const block = `${open}\n${body}\n${close}`;
  const re = new RegExp(`${open}[\\s\\S]*?${close}`);
  fs.writeFileSync(file, re.test(text) ? text.replace(re, block) : `${text.trimEnd()}\n\n${block}\n`);
}

const runs = [];
for (const mode of MODES) runs.push(await runMode(mode));
console.log(JSON.stringify(runs, null, 2));
writeSection(path.join(import.meta.dirname, '..', 'docs', 'benchmarks.md'), 'bench:ours', markdown(runs));
