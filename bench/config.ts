import { mkdtemp, rm } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer } from '../test/support/server-process.ts';
import { BENCH_ADMIN, benchServer } from './server.ts';

/**
 * Configuration as code (issue budget): export, dry run and apply of a manifest with COLLECTIONS collections and
 * FIELDS fields in all, on the embedded database and on PostgreSQL, with the server's peak RSS; then the apply of the
 * unchanged manifest (a no-op: target under 100 ms), repeated. `npm run bench:config`.
 */
const COLLECTIONS = Number(process.env.COLLECTIONS ?? 200);
const FIELDS = Number(process.env.FIELDS ?? 4000);
const REPEAT = Number(process.env.REPEAT ?? 20);
const TYPES = ['string', 'text', 'integer', 'decimal', 'boolean', 'json', 'datetime', 'uuid'];

function manifest() {
  const names = Array.from({ length: COLLECTIONS }, (_, i) => `c${String(i).padStart(3, '0')}`);
  const per = Math.ceil(FIELDS / COLLECTIONS);
  return {
    version: 'svc.config@v1',
    collections: names.map((name) => ({ name, label: name.toUpperCase(), versioning: true })),
    fields: names
      .flatMap((collection) =>
        Array.from({ length: per }, (_, j) => ({
          collection,
          field: `f${j}`,
          type: TYPES[j % TYPES.length],
          interface: 'input',
          required: j === 0,
          nullable: j !== 0,
        })),
      )
      .slice(0, FIELDS),
    relations: names.slice(1).map((collection, i) => ({
      kind: 'm2o',
      collection,
      field: 'f0',
      target: names[i],
    })),
  };
}

const peakRss = (pid: number) => {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Math.round(Number(m[1]) / 1024) : NaN;
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const p95 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.95))]!;

async function measure(backend: 'embedded' | 'postgres') {
  const dir = await mkdtemp(join(tmpdir(), 'svc-bench-config-'));
  const bench =
    backend === 'postgres'
      ? await benchServer('svc_bench_config')
      : await (async () => {
          const server = await startServer({
            SVC_DATA_DIR: dir,
            SVC_ADMIN_EMAIL: BENCH_ADMIN.email,
            SVC_ADMIN_PASSWORD: BENCH_ADMIN.password,
            SVC_SITE_ID: 'bench',
          });
          return {
            server,
            close: async () => {
              server.child.kill('SIGTERM');
              await server.exited;
            },
          };
        })();
  try {
    const { url, child } = bench.server;
    const login = await fetch(`${url}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(BENCH_ADMIN),
    });
    const token = ((await login.json()) as { data: { token: string } }).data.token;
    const headers = { authorization: `Bearer ${token}`, 'x-svc-site': 'bench', 'content-type': 'application/json' };
    const body = JSON.stringify(manifest());
    const timed = async (method: string, path: string, payload?: string) => {
      const t0 = performance.now();
      const res = await fetch(`${url}${path}`, { method, headers, ...(payload ? { body: payload } : {}) });
      const text = await res.text();
      const ms = performance.now() - t0;
      if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 500)}`);
      return { ms, json: JSON.parse(text) as { data: { operations?: unknown[]; applied?: unknown } } };
    };
    const rows: [string, string][] = [];
    const dry = await timed('POST', '/api/v1/config/import?dryRun=true&mode=merge', body);
    rows.push([`dry run, ${dry.json.data.operations!.length} operations`, `${dry.ms.toFixed(0)} ms`]);
    const apply = await timed('POST', '/api/v1/config/import?mode=merge', body);
    rows.push(['apply (one atomic append)', `${apply.ms.toFixed(0)} ms`]);
    const exports: number[] = [];
    let size = 0;
    for (let i = 0; i < 5; i++) {
      const e = await timed('GET', '/api/v1/config/export');
      exports.push(e.ms);
      size = JSON.stringify(e.json).length;
    }
    rows.push([`export (${(size / 1024).toFixed(0)} KiB), median of 5`, `${median(exports).toFixed(0)} ms`]);
    const unchangedDry: number[] = [];
    const unchangedApply: number[] = [];
    for (let i = 0; i < REPEAT; i++) {
      unchangedDry.push((await timed('POST', '/api/v1/config/import?dryRun=true&mode=replace-all', body)).ms);
      const a = await timed('POST', '/api/v1/config/import?mode=replace-all', body);
      if (a.json.data.operations!.length) throw new Error('the unchanged manifest planned operations');
      unchangedApply.push(a.ms);
    }
    rows.push([
      `dry run of the unchanged manifest, median / p95 of ${REPEAT}`,
      `${median(unchangedDry).toFixed(0)} / ${p95(unchangedDry).toFixed(0)} ms`,
    ]);
    rows.push([
      `apply of the unchanged manifest (no-op), median / p95 of ${REPEAT}`,
      `${median(unchangedApply).toFixed(0)} / ${p95(unchangedApply).toFixed(0)} ms`,
    ]);
    rows.push(['server peak RSS', `${peakRss(child.pid!)} MB`]);
    return rows;
  } finally {
    await bench.close();
    await rm(dir, { recursive: true, force: true });
  }
}

async function main() {
  const out = [
    `Manifest: ${COLLECTIONS} collections, ${FIELDS} fields, ${COLLECTIONS - 1} m2o relations (${new Date().toISOString()}).`,
    '',
  ];
  for (const backend of ['embedded', 'postgres'] as const) {
    console.error(`[config] ${backend}…`);
    const rows = await measure(backend);
    out.push(`**${backend}**`, '', '| step | time |', '| --- | --- |', ...rows.map(([a, b]) => `| ${a} | ${b} |`), '');
  }
  console.log(out.join('\n'));
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
