import autocannon from 'autocannon';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { directusInstall, startDirectus, type Directus } from './directus.ts';
import { measure, rssMb, type LoadConfig, type Measured } from './load.ts';
import { num, ratio, writeSection } from './report.ts';
import type { Scenario } from './scenarios.ts';
import { searchArticles, SEARCH_TERMS, tmPairs, nearMisses, type TmPair } from './search-data.ts';
import { seed } from './seed.ts';
import { benchServer } from './server.ts';

/**
 * Full-text search and translation memory, `npm run bench:search`. N articles (100 000) with the peer's fields, a third
 * of them in Vietnamese (bench/search-data.ts), seeded into ours (PostgreSQL) and into Directus (an install of the
 * peer script, DIRECTUS_INSTALL) through their APIs; then, term by term and back to back, Directus's
 * `/items/articles?search=`, our `/api/v1/search` and our `/api/v1/items/articles?search=` at 10 connections, with
 * each one's hit count. Then TM_N translation-memory entries (en → vi) imported as TMX and LOOKUPS near-miss lookups,
 * one after the other and at 10 connections. Writes the `bench:search` section of docs/benchmarks.md (BENCH_OUT).
 */
const env = process.env;
const N = Number(env.N ?? 100_000);
const TM_N = Number(env.TM_N ?? N);
const LOOKUPS = Number(env.LOOKUPS ?? 2000);
const TM_CHUNK = Number(env.TM_CHUNK ?? 5000);
/** Which legs run: `directus`, `ours` (seeding and the search loads), `tm`. */
const LEGS = (env.LEGS ?? 'directus,ours,tm').split(',');
const LOAD: LoadConfig = {
  connections: Number(env.CONNECTIONS ?? 10),
  warmup: Number(env.WARMUP ?? 2),
  duration: Number(env.DURATION ?? 10),
};
const OUT = env.BENCH_OUT ?? path.join(import.meta.dirname, '..', 'docs', 'benchmarks.md');
const COMMAND =
  `\`${LEGS.includes('directus') ? 'DIRECTUS_INSTALL=… ' : ''}N=${N} TM_N=${TM_N} LEGS=${LEGS.join(',')} ` +
  'npm run bench:search`';
/** Seed both systems at the same time (each one's seeding time then includes the other's load); 0: one after the other. */
const PARALLEL = env.SEED_PARALLEL !== '0';
const SITE = 'bench';
const BATCH = 500;
const log = (m: string) => console.error(`[bench:search] ${m}`);
const pct = (sorted: number[], p: number) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! : 0;

const xmlEscape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

type Leg = Measured | { error: string };
interface TermRun {
  key: string;
  term: string;
  what: string;
  legs: Record<'directus' | 'search' | 'items', { hits: number | null; load: Leg | null }>;
}

async function json<T>(url: string, init: RequestInit = {}): Promise<T> {
  const res = await fetch(url, init);
  if (!res.ok) throw new Error(`${init.method ?? 'GET'} ${url}: ${res.status} ${(await res.text()).slice(0, 500)}`);
  return (await res.json()) as T;
}

const { rows, vi } = LEGS.includes('directus') || LEGS.includes('ours') ? searchArticles(N) : { rows: [], vi: 0 };
if (rows.length) log(`${N} articles, ${vi} of them Vietnamese`);
const startedAt = new Date();
const peak = { ours: 0, directus: 0 };
let directus: Directus | null = null;
let ours: Awaited<ReturnType<typeof benchServer>> | null = null;
const sampler = setInterval(() => {
  try {
    if (ours) peak.ours = Math.max(peak.ours, rssMb(ours.server.child.pid!));
    if (directus) peak.directus = Math.max(peak.directus, rssMb(directus.pid));
  } catch {
    // a process that just ended
  }
}, 250);

async function cleanup() {
  clearInterval(sampler);
  const o = ours;
  const d = directus;
  ours = null;
  directus = null;
  if (o) await o.close();
  if (d) await d.stop();
}
// Interrupted: the servers started here stop as on a normal end.
for (const sig of ['SIGINT', 'SIGTERM'] as const)
  process.once(sig, () => void cleanup().finally(() => process.exit(130)));

const result = {
  startedAt,
  n: N,
  vi,
  load: LOAD,
  versions: { node: process.version, postgresql: '', directus: '', directusNode: '' },
  seed: { directusMs: null as number | null, oursMs: null as number | null, indexMs: null as number | null },
  terms: [] as TermRun[],
  tm: null as null | {
    n: number;
    chunk: number;
    via: string;
    seedMs: number;
    sequential: { p50: number; p99: number; rps: number };
    concurrent: { p50: number; p99: number; rps: number; non2xx: number; errors: number };
    found: number;
    sameEntry: number;
  },
  tmError: null as string | null,
  rss: peak,
};

try {
  let seedDirectus = async () => {};
  // --- Directus: its own database, the peer's collection, our rows -------------------------------------------------
  if (LEGS.includes('directus')) {
    directus = await startDirectus({
      install: directusInstall(),
      port: Number(env.DIRECTUS_PORT ?? 8057),
      db: 'directus_search',
      freeze: env.DIRECTUS_SCHEMA_FREEZE === 'true',
    });
    result.versions.directus = directus.version;
    result.versions.directusNode = directus.nodeVersion;
    const headers = { authorization: `Bearer ${directus.token}`, 'content-type': 'application/json' };
    // The collection of the peer's setup.mjs, field for field.
    await json(`${directus.url}/collections`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        collection: 'articles',
        meta: { icon: 'article' },
        schema: {},
        fields: [
          {
            field: 'id',
            type: 'integer',
            meta: { hidden: true, readonly: true, interface: 'input' },
            schema: { is_primary_key: true, has_auto_increment: true },
          },
          { field: 'title', type: 'string', meta: { interface: 'input' }, schema: {} },
          { field: 'body', type: 'text', meta: { interface: 'input-multiline' }, schema: {} },
          { field: 'status', type: 'string', meta: { interface: 'input' }, schema: {} },
          { field: 'views', type: 'integer', meta: { interface: 'input' }, schema: {} },
          { field: 'published_at', type: 'timestamp', meta: { interface: 'datetime' }, schema: {} },
        ],
      }),
    });
    const d = directus;
    seedDirectus = async () => {
      const t0 = Date.now();
      for (let i = 0; i < N; i += BATCH)
        await json(`${d.url}/items/articles?fields=id`, {
          method: 'POST',
          headers,
          body: JSON.stringify(rows.slice(i, i + BATCH)),
        });
      result.seed.directusMs = Date.now() - t0;
      log(`Directus ${d.version}: seeded ${N} in ${result.seed.directusMs} ms`);
    };
    if (!PARALLEL) await seedDirectus();
  }

  // --- ours: PostgreSQL, the same rows through bench/seed.ts ----------------------------------------------------
  let token = '';
  if (LEGS.includes('ours') || LEGS.includes('tm')) {
    ours = await benchServer(env.BENCH_DB ?? 'svc_bench_search', {
      LOG_LEVEL: env.BENCH_LOG_LEVEL ?? 'warn',
      // Seeding on a busy machine can outlast the default 15 minutes of an access token.
      ACCESS_TOKEN_TTL_S: '86400',
    });
    token = await ours.login();
    const c = new pg.Client({ connectionString: ours.url });
    await c.connect();
    result.versions.postgresql = (
      await c.query<{ server_version: string }>('show server_version')
    ).rows[0]!.server_version;
    await c.end();
  }
  const oursHeaders = () => ({ authorization: `Bearer ${token}`, 'x-svc-site': SITE });
  // The memory's import runs alongside the articles' seeding (its time then includes that load); lookups come last.
  const tmSeeding =
    ours && LEGS.includes('tm')
      ? tmSeed(ours.server.url, oursHeaders()).then(
          (r) => r,
          (e: unknown) => e as Error,
        )
      : null;
  if (ours && LEGS.includes('ours')) {
    const seedOurs = async (o: NonNullable<typeof ours>) => {
      const seeded = await seed(o.server.url, token, SITE, N, rows);
      result.seed.oursMs = seeded.ms;
      log(`ours: seeded ${N} in ${seeded.ms} ms`);
    };
    await Promise.all([seedOurs(ours), PARALLEL ? seedDirectus() : null]);
    const c = new pg.Client({ connectionString: ours.url });
    await c.connect();
    await c.query('analyze');
    await c.end();
    // Every title holds "Article": the index is complete when a search for it finds all N (or stops growing).
    const t0 = Date.now();
    let last = -1;
    for (let same = 0; same < 5;) {
      const res = await fetch(`${ours.server.url}/api/v1/search?collection=articles&q=Article&limit=1`, {
        headers: oursHeaders(),
      });
      if (!res.ok) {
        log(`search index: /api/v1/search answered ${res.status}, not waiting`);
        break;
      }
      const total = ((await res.json()) as { meta: { total: number } }).meta.total;
      if (total >= N) {
        result.seed.indexMs = Date.now() - t0;
        break;
      }
      same = total === last ? same + 1 : 0;
      last = total;
      await new Promise((r) => setTimeout(r, 2000));
    }
    log(`ours: search index complete after ${result.seed.indexMs ?? 'n/a'} ms`);
  }

  // --- the loads, term by term: Directus, our search, our item list ---------------------------------------------
  const scenario = (key: string, name: string, p: string): Scenario => ({
    key,
    name,
    group: 'search',
    method: 'GET',
    path: p,
  });
  const run = async (f: () => Promise<Measured>): Promise<Leg> => {
    try {
      return await f();
    } catch (e) {
      const m = (e as Error).message;
      // A probe's refusal (e.g. a 404 of a route not there) in short; anything else as it came.
      return { error: /probe answered (\d+)/.exec(m)?.[0] ?? m.slice(0, 120) };
    }
  };
  const hits = async (f: () => Promise<number>) => {
    try {
      return await f();
    } catch (e) {
      log(`hits: ${(e as Error).message}`);
      return null;
    }
  };
  if (directus || (ours && LEGS.includes('ours'))) {
    for (const t of SEARCH_TERMS) {
      const q = encodeURIComponent(t.term);
      const tr: TermRun = {
        ...t,
        legs: {
          directus: { hits: null, load: null },
          search: { hits: null, load: null },
          items: { hits: null, load: null },
        },
      };
      if (directus) {
        const d = directus;
        tr.legs.directus.hits = await hits(
          async () =>
            (
              await json<{ meta: { filter_count: number } }>(
                `${d.url}/items/articles?search=${q}&limit=0&meta=filter_count`,
                { headers: { authorization: `Bearer ${d.token}` } },
              )
            ).meta.filter_count,
        );
        const s = scenario(`directus-${t.key}`, `Directus search ${t.term}`, `/items/articles?search=${q}&limit=25`);
        tr.legs.directus.load = await run(() =>
          measure({ url: d.url, pid: d.pid, token: d.token, site: SITE, sampleId: '' }, s, LOAD),
        );
        log(`${s.name}: ${JSON.stringify(tr.legs.directus)}`);
      }
      if (ours && LEGS.includes('ours')) {
        const o = ours.server;
        const target = { url: o.url, pid: o.child.pid!, token, site: SITE, sampleId: '' };
        const searchPath = `/api/v1/search?collection=articles&q=${q}&limit=25`;
        tr.legs.search.hits = await hits(
          async () =>
            (await json<{ meta: { total: number } }>(`${o.url}${searchPath}`, { headers: oursHeaders() })).meta.total,
        );
        tr.legs.search.load = await run(() => measure(target, scenario(`search-${t.key}`, 'search', searchPath), LOAD));
        log(`ours search ${t.term}: ${JSON.stringify(tr.legs.search)}`);
        const itemsPath = `/api/v1/items/articles?search=${q}&limit=25`;
        tr.legs.items.hits = await hits(
          async () =>
            (
              await json<{ meta: { filter_count: number } }>(`${o.url}${itemsPath}&meta=filter_count`, {
                headers: oursHeaders(),
              })
            ).meta.filter_count,
        );
        tr.legs.items.load = await run(() => measure(target, scenario(`items-${t.key}`, 'items', itemsPath), LOAD));
        log(`ours items ${t.term}: ${JSON.stringify(tr.legs.items)}`);
      }
      result.terms.push(tr);
    }
  }

  // --- translation memory: TM_N entries, then LOOKUPS near-miss lookups ----------------------------------------
  if (ours && tmSeeding) {
    try {
      const seeded = await tmSeeding;
      if (seeded instanceof Error) throw seeded;
      result.tm = await tmLookups(ours.server.url, oursHeaders(), seeded);
    } catch (e) {
      result.tmError = (e as Error).message.replace(/http:\/\/127\.0\.0\.1:\d+/g, '').slice(0, 200);
      log(`tm: ${result.tmError}`);
    }
  }
} finally {
  await cleanup();
}

fs.writeFileSync(`${OUT}.search.json`, JSON.stringify(result, null, 2));
// Two sections, each written only by a run of its legs: the search comparison, and the translation memory.
if (LEGS.includes('directus') || LEGS.includes('ours')) writeSection(OUT, 'bench:search', section());
if (LEGS.includes('tm')) writeSection(OUT, 'bench:search-tm', tmSection());
log(`wrote ${OUT} and ${OUT}.search.json`);

function tmx(pairs: TmPair[]): string {
  const units = pairs.map(
    (p) =>
      `<tu><tuv xml:lang="en"><seg>${xmlEscape(p.source)}</seg></tuv><tuv xml:lang="vi"><seg>${xmlEscape(p.target)}</seg></tuv></tu>`,
  );
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n<tmx version="1.4"><header creationtool="bench-search" ' +
    'creationtoolversion="1" segtype="sentence" o-tmf="bench" adminlang="en" srclang="en" datatype="plaintext"/>' +
    `<body>\n${units.join('\n')}\n</body></tmx>\n`
  );
}

interface TmSeeded {
  pairs: TmPair[];
  via: string;
  seedMs: number;
}

async function tmSeed(url: string, headers: Record<string, string>): Promise<TmSeeded> {
  const pairs = tmPairs(TM_N);
  const t0 = Date.now();
  let via = `POST /api/v1/tm/import, TMX 1.4b in chunks of ${TM_CHUNK}`;
  const first = await fetch(`${url}/api/v1/tm/import`, {
    method: 'POST',
    headers: { ...headers, 'content-type': env.TM_IMPORT_TYPE ?? 'application/xml' },
    body: tmx(pairs.slice(0, TM_CHUNK)),
  });
  if (first.ok) {
    for (let i = TM_CHUNK; i < pairs.length; i += TM_CHUNK) {
      await json(`${url}/api/v1/tm/import`, {
        method: 'POST',
        headers: { ...headers, 'content-type': env.TM_IMPORT_TYPE ?? 'application/xml' },
        body: tmx(pairs.slice(i, i + TM_CHUNK)),
      });
      if ((i / TM_CHUNK) % 5 === 0) log(`tm: imported ${i + TM_CHUNK} in ${Date.now() - t0} ms`);
    }
  } else if (first.status === 404) {
    // No import route: one upsert per entry, 10 at a time.
    via = 'POST /api/v1/tm, one entry per request, 10 at a time';
    let next = 0;
    const worker = async () => {
      for (let i = next++; i < pairs.length; i = next++)
        await json(`${url}/api/v1/tm`, {
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/json' },
          body: JSON.stringify({
            sourceLang: 'en',
            targetLang: 'vi',
            source: pairs[i]!.source,
            target: pairs[i]!.target,
            quality: 100,
            entrySource: 'import',
          }),
        });
    };
    await Promise.all(Array.from({ length: 10 }, worker));
  } else {
    throw new Error(`POST /api/v1/tm/import: ${first.status} ${(await first.text()).slice(0, 300)}`);
  }
  const seedMs = Date.now() - t0;
  log(`tm: ${pairs.length} entries in ${seedMs} ms (${via})`);
  if (LEGS.includes('ours')) via += ', while the articles were seeded';
  return { pairs, via, seedMs };
}

async function tmLookups(
  url: string,
  headers: Record<string, string>,
  { pairs, via, seedMs }: TmSeeded,
): Promise<NonNullable<typeof result.tm>> {
  const queries = nearMisses(pairs, LOOKUPS);
  const body = (query: string) => JSON.stringify({ query, sourceLang: 'en', targetLang: 'vi' });
  const jsonHeaders = { ...headers, 'content-type': 'application/json' };
  const times: number[] = [];
  let found = 0;
  let sameEntry = 0;
  const s0 = performance.now();
  for (const q of queries) {
    const t = performance.now();
    const res = await json<{ data: { match: { source?: string } | null } }>(`${url}/api/v1/tm/lookup`, {
      method: 'POST',
      headers: jsonHeaders,
      body: body(q.query),
    });
    times.push(performance.now() - t);
    if (res.data.match) found++;
    if (res.data.match?.source === pairs[q.from]!.source) sameEntry++;
  }
  const seqS = (performance.now() - s0) / 1000;
  times.sort((a, b) => a - b);
  let k = 0;
  const c0 = performance.now();
  const r = await autocannon({
    url,
    connections: LOAD.connections,
    amount: queries.length,
    requests: [
      {
        method: 'POST',
        path: '/api/v1/tm/lookup',
        headers: jsonHeaders,
        setupRequest: (req) => ({ ...req, body: body(queries[k++ % queries.length]!.query) }),
      },
    ],
  });
  const conS = (performance.now() - c0) / 1000;
  const round = (x: number) => Math.round(x * 10) / 10;
  return {
    n: pairs.length,
    chunk: TM_CHUNK,
    via,
    seedMs,
    sequential: { p50: round(pct(times, 50)), p99: round(pct(times, 99)), rps: Math.round(queries.length / seqS) },
    concurrent: {
      p50: r.latency.p50,
      p99: r.latency.p99,
      rps: Math.round(r.requests.total / conS),
      non2xx: r.non2xx,
      errors: r.errors,
    },
    found,
    sameEntry,
  };
}

function section(): string {
  const cpu = os.cpus();
  const v = result.versions;
  const s = (ms: number | null) => (ms === null ? 'not run' : `${(ms / 1000).toFixed(1)} s`);
  const lines = [
    `Measured ${startedAt.toISOString().slice(0, 16)} UTC on ${cpu.length} × ${cpu[0]?.model.trim() ?? 'CPU'}, ` +
      `${Math.round(os.totalmem() / 2 ** 30)} GB, Node ${v.node}` +
      (v.postgresql ? `, PostgreSQL ${v.postgresql}` : '') +
      (v.directus ? `; Directus ${v.directus} on Node ${v.directusNode}, same cluster, its own database` : '') +
      `. ${N} articles (${vi} Vietnamese), autocannon ${LOAD.connections} connections, ${LOAD.warmup} s warm-up, ` +
      `${LOAD.duration} s measured, the three requests of a term back to back. Command: ${COMMAND}.`,
    '',
    '| term | request | hits | req/s | p50 ms | p99 ms | non-2xx | server CPU ms/req | req/s ours/Directus | p99 ours/Directus |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
  ];
  const names = {
    directus: 'Directus `/items/articles?search=`',
    search: 'ours `/api/v1/search`',
    items: 'ours `/api/v1/items/articles?search=`',
  };
  for (const t of result.terms) {
    const d = t.legs.directus.load;
    const dm = d && !('error' in d) ? d : null;
    for (const key of ['directus', 'search', 'items'] as const) {
      const leg = t.legs[key];
      if (!leg.load) continue;
      const term = `\`${t.term}\` (${t.what})`;
      if ('error' in leg.load) {
        lines.push(`| ${term} | ${names[key]} | ${leg.hits ?? ''} | not run: ${leg.load.error} | | | | | | |`);
        continue;
      }
      const m = leg.load;
      const cmp = key !== 'directus' && dm;
      lines.push(
        `| ${term} | ${names[key]} | ${leg.hits ?? ''} | ${m.rps} | ${num(m.p50_ms)} | ${num(m.p99_ms)} | ${m.non2xx} | ` +
          `${num(m.server_cpu_ms_per_req)} | ${cmp ? ratio(m.rps, dm.rps) : ''} | ${cmp ? ratio(m.p99_ms, dm.p99_ms) : ''} |`,
      );
    }
  }
  lines.push(
    '',
    `Seeding through the APIs, arrays of ${BATCH}${PARALLEL ? ', both at the same time' : ''}: Directus ${s(result.seed.directusMs)}, ours ${s(result.seed.oursMs)}` +
      (result.seed.indexMs !== null ? ` (search index complete ${s(result.seed.indexMs)} after the last write)` : '') +
      `. Peak RSS: ours ${peak.ours || '–'} MB, Directus ${peak.directus || '–'} MB.`,
  );
  return lines.join('\n');
}

function tmSection(): string {
  const tm = result.tm;
  const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  if (!tm)
    return `Translation memory, ${startedAt.toISOString().slice(0, 16)} UTC: not run${result.tmError ? ` (${result.tmError})` : ''}.`;
  const cpu = os.cpus();
  return [
    `Measured ${startedAt.toISOString().slice(0, 16)} UTC on ${cpu.length} × ${cpu[0]?.model.trim() ?? 'CPU'}, Node ` +
      `${result.versions.node}, PostgreSQL ${result.versions.postgresql}. ${tm.n} entries en → vi (${tm.via}) in ` +
      `${s(tm.seedMs)} (${Math.round((tm.n * 1000) / tm.seedMs)}/s); ${LOOKUPS} near-miss lookups (one word of a ` +
      `stored source edited: a letter dropped, or the word replaced), default threshold: a match for ${tm.found}, ` +
      `the entry the query was made from for ${tm.sameEntry}. Server peak RSS ${peak.ours} MB. Command: ${COMMAND}.`,
    '',
    '| lookups | req/s | p50 ms | p99 ms | non-2xx |',
    '| --- | --- | --- | --- | --- |',
    `| one after the other | ${tm.sequential.rps} | ${tm.sequential.p50} | ${tm.sequential.p99} | 0 |`,
    `| ${LOAD.connections} connections | ${tm.concurrent.rps} | ${tm.concurrent.p50} | ${tm.concurrent.p99} | ${tm.concurrent.non2xx} |`,
  ].join('\n');
}
