import fs from 'node:fs';
import os from 'node:os';
import type { DirectusResult, DirectusRun } from './directus-summary.ts';
import type { LoadConfig, Measured } from './load.ts';
import { SCENARIOS } from './scenarios.ts';
import type { Seeded } from './seed.ts';

/** One mode's run of ours: the server on PostgreSQL or embedded (PGlite in its own process). */
export interface ModeRun {
  mode: string;
  pgVersion: string | null;
  rssMb: number;
  seed: Seeded;
  results: Record<string, Measured>;
}

export interface RunInfo {
  startedAt: Date;
  load: LoadConfig;
  runs: ModeRun[];
  directus: DirectusRun | null;
}

const MODE_LABEL: Record<string, string> = { postgres: 'ours, PostgreSQL', embedded: 'ours, embedded' };
const label = (mode: string) => MODE_LABEL[mode] ?? `ours, ${mode}`;
export const num = (v: number | null | undefined) =>
  v === undefined || v === null ? '' : String(Math.round(v * 100) / 100);
export const ratio = (a: number | undefined, b: number | undefined) => (a && b ? `${(a / b).toFixed(2)}x` : '');
/** PostgreSQL mode first, then embedded, then anything else. */
const byMode = (runs: ModeRun[]) => [...runs].sort((a, b) => rank(a.mode) - rank(b.mode));
const rank = (mode: string) => (mode === 'postgres' ? 0 : mode === 'embedded' ? 1 : 2);
const rate = (s: Seeded) => Math.round((s.n * 1000) / Math.max(s.ms, 1));

/** The issue's targets, for PostgreSQL mode. */
const TARGETS: { what: string; key: string; ok: (r: Measured) => boolean; shown: (r: Measured) => string }[] = [
  { what: 'read by id (c): p99 < 5 ms', key: 'c', ok: (r) => r.p99_ms < 5, shown: (r) => `p99 ${r.p99_ms} ms` },
  { what: 'filtered list (b): p99 < 20 ms', key: 'b', ok: (r) => r.p99_ms < 20, shown: (r) => `p99 ${r.p99_ms} ms` },
  { what: 'create (d): > 1 000/s', key: 'd', ok: (r) => r.rps > 1000, shown: (r) => `${r.rps} req/s` },
  { what: 'deep page (g): ≥ 80 req/s', key: 'g', ok: (r) => r.rps >= 80, shown: (r) => `${r.rps} req/s` },
];

function headline(info: RunInfo): string {
  const cpu = os.cpus();
  const pg = info.runs.find((r) => r.pgVersion)?.pgVersion;
  const seedN = info.runs[0]?.seed.n;
  const d = info.directus;
  const peer = d
    ? ` Directus ${d.summary.versions.directus} from \`${d.path}\` (written ${d.writtenAt.toISOString().slice(0, 16)} UTC, ` +
      `${d.summary.setup.seed_items} articles). Both were measured back to back on this machine, one after the other, ` +
      "with the same data (the peer's generator) and the same load; compare only such pairs."
    : ' No Directus summary was given (`DIRECTUS_SUMMARY`), so there is nothing to compare with.';
  return (
    `Measured ${info.startedAt.toISOString().slice(0, 16)} UTC on ${cpu.length} × ${cpu[0]?.model.trim() ?? 'CPU'}, ` +
    `${Math.round(os.totalmem() / 2 ** 30)} GB, Node ${process.version}${pg ? `, PostgreSQL ${pg}` : ''}: ` +
    `${seedN} articles, autocannon ${info.load.connections} connections, ${info.load.warmup} s warm-up, ` +
    `${info.load.duration} s measured.${peer}`
  );
}

function warnings(info: RunInfo): string[] {
  const d = info.directus?.summary;
  if (!d) return [];
  const out: string[] = [];
  const seedN = info.runs[0]?.seed.n;
  if (d.setup.seed_items !== seedN) out.push(`Directus holds ${d.setup.seed_items} articles, ours ${seedN}.`);
  const c = d.bench_config;
  const l = info.load;
  if (c.connections !== l.connections || c.duration_s !== l.duration || c.warmup_s !== l.warmup)
    out.push(`Directus ran ${c.connections} connections, ${c.warmup_s} s + ${c.duration_s} s.`);
  if (d.machine.cpus !== os.cpus().length) out.push(`Directus ran on ${d.machine.cpus} cores.`);
  const disturbed = Object.entries(d.detail ?? {}).filter(([, v]) => v.disturbed);
  if (disturbed.length)
    out.push(`Directus scenarios disturbed by foreign load: ${disturbed.map(([k]) => k).join(', ')}.`);
  const gapMin = Math.abs(info.startedAt.getTime() - info.directus!.writtenAt.getTime()) / 60_000;
  if (gapMin > 60) out.push(`Directus ran ${Math.round(gapMin)} minutes apart from ours, not back to back.`);
  return out.map((w) => `- **Not like for like:** ${w}`);
}

function itemRows(info: RunInfo): string[] {
  const rows = [
    '| scenario | system | req/s | p50 ms | p99 ms | non-2xx | server CPU ms/req | req/s ours/Directus | p99 ours/Directus |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
  ];
  for (const s of SCENARIOS.filter((x) => x.group === 'items')) {
    const peer: DirectusResult | undefined = info.directus?.summary.results[s.key];
    const name = `${s.name}${s.oursOnly ? ' (ours only)' : ''}`;
    for (const run of byMode(info.runs)) {
      const r = run.results[s.key];
      if (!r) continue;
      const ok = peer && !peer.error;
      rows.push(
        `| ${name} | ${label(run.mode)} | ${r.rps} | ${num(r.p50_ms)} | ${num(r.p99_ms)} | ${r.non2xx} | ` +
          `${num(r.server_cpu_ms_per_req)} | ${ok ? ratio(r.rps, peer.rps) : ''} | ${ok ? ratio(r.p99_ms, peer.p99_ms) : ''} |`,
      );
    }
    if (peer?.error) rows.push(`| ${name} | Directus | ${peer.error} | | | | | | |`);
    else if (peer)
      rows.push(
        `| ${name} | Directus | ${Math.round(peer.rps ?? 0)} | ${num(peer.p50_ms)} | ${num(peer.p99_ms)} | ${num(peer.non2xx)} | ` +
          `${num(peer.directus_cpu_ms_per_req)} | | |`,
      );
  }
  return rows;
}

/** Ours against the floor (bench/floor-server.ts: fastify + pg reading the same row), from the same run. */
function floorLines(info: RunInfo): string[] {
  const pg = info.runs.find((r) => r.mode === 'postgres');
  const ours = pg?.results.c;
  const floor = pg?.results.floor;
  if (!ours || !floor) return [];
  return [
    `The floor (a bare fastify + pg server reading the same row by primary key, no authentication, schema or ` +
      `row-level security), same run: ${floor.rps} req/s, p99 ${num(floor.p99_ms)} ms, ` +
      `${num(floor.server_cpu_ms_per_req)} ms server CPU per request. Read by id, ours/floor: ` +
      `${ratio(ours.rps, floor.rps)} req/s, ${ratio(ours.server_cpu_ms_per_req ?? undefined, floor.server_cpu_ms_per_req ?? undefined)} CPU per request.`,
  ];
}

function seedingLines(info: RunInfo): string[] {
  const ours = byMode(info.runs).map((r) => `${label(r.mode)} ${(r.seed.ms / 1000).toFixed(1)} s (${rate(r.seed)}/s)`);
  const d = info.directus?.summary.setup;
  if (d) ours.push(`Directus ${(d.seed_ms / 1000).toFixed(1)} s (${Math.round((d.seed_items * 1000) / d.seed_ms)}/s)`);
  return [`Seeding through the API, arrays of 500, one request after another: ${ours.join('; ')}.`];
}

function targetLines(info: RunInfo): string[] {
  const pg = info.runs.find((r) => r.mode === 'postgres');
  const lines = ['Targets of the issue (PostgreSQL mode):', ''];
  for (const t of TARGETS) {
    const r = pg?.results[t.key];
    lines.push(`- ${t.what}: ${r ? `${t.ok(r) ? 'met' : 'not met'} (${t.shown(r)})` : 'not measured'}`);
  }
  return lines;
}

/** The comparison with Directus, scenario by scenario, and the issue's targets. */
export function itemsSection(info: RunInfo): string {
  const warn = warnings(info);
  return [
    headline(info),
    '',
    ...(warn.length ? [...warn, ''] : []),
    ...itemRows(info),
    '',
    'Ratios: above 1x ours serves more requests per second; below 1x ours has the lower p99. ' +
      'Non-2xx counts every answer outside 2xx (a 409 of a concurrent update included). Server CPU is the ' +
      "service's own process (PostgreSQL backends not counted; embedded mode runs its database inside that process).",
    '',
    ...floorLines(info),
    '',
    ...seedingLines(info),
    '',
    ...targetLines(info),
  ].join('\n');
}

/** The site-record scenarios (no Directus counterpart) and the server's memory after the run. */
export function siteSection(info: RunInfo): string {
  const lines = [
    `Same run as the item scenarios (${info.startedAt.toISOString().slice(0, 16)} UTC); no Directus counterpart.`,
    '',
    '| mode | scenario | req/s | p50 ms | p99 ms | non-2xx | server CPU ms/req |',
    '| --- | --- | --- | --- | --- | --- | --- |',
  ];
  for (const run of info.runs) {
    for (const s of SCENARIOS.filter((x) => x.group === 'site')) {
      const r = run.results[s.key];
      if (!r) continue;
      lines.push(
        `| ${run.mode} | ${r.name} | ${r.rps} | ${num(r.p50_ms)} | ${num(r.p99_ms)} | ${r.non2xx} | ${num(r.server_cpu_ms_per_req)} |`,
      );
    }
    lines.push(`| ${run.mode} | server RSS after the run | ${run.rssMb} MB | | | | |`);
  }
  return lines.join('\n');
}

/**
 * Replaces the block between `<!-- marker -->` and `<!-- /marker -->`; a new block goes right before the
 * `before` block if there is one, else at the end.
 */
export function writeSection(file: string, marker: string, body: string, before?: string): void {
  const text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '# Benchmarks\n';
  const open = `<!-- ${marker} -->`;
  const close = `<!-- /${marker} -->`;
  const block = `${open}\n${body}\n${close}`;
  const at = text.indexOf(open);
  const end = text.indexOf(close, at);
  const anchor = before ? text.indexOf(`<!-- ${before} -->`) : -1;
  let next = `${text.trimEnd()}\n\n${block}\n`;
  if (at >= 0 && end >= 0) next = text.slice(0, at) + block + text.slice(end + close.length);
  else if (anchor >= 0) next = `${text.slice(0, anchor)}${block}\n\n${text.slice(anchor)}`;
  fs.writeFileSync(file, next);
}
