import fs from 'node:fs';

/** One scenario of the peer's summary.json `results` (written by ../shared/peer-directus/run.sh). */
export interface DirectusResult {
  name: string;
  rps?: number;
  p50_ms?: number;
  p99_ms?: number;
  requests?: number;
  non2xx?: number;
  errors?: number;
  directus_cpu_ms_per_req?: number | null;
  foreign_cpu_pct?: number | null;
  attempts?: number;
  error?: string;
}

/** The parts of the peer's summary.json the report reads. */
export interface DirectusSummary {
  versions: Record<string, string>;
  machine: { cpus: number; mem_gb: number };
  directus_settings: Record<string, unknown>;
  setup: { seed_items: number; seed_ms: number; sample_id: number };
  bench_config: { connections: number; duration_s: number; warmup_s: number };
  results: Record<string, DirectusResult>;
  detail?: Record<string, { disturbed?: boolean }>;
  after?: { directus_rss_mb?: number };
}

export interface DirectusRun {
  path: string;
  /** When the peer wrote the file: shows how close to ours it ran. */
  writtenAt: Date;
  summary: DirectusSummary;
}

/** Reads the summary named by DIRECTUS_SUMMARY; fails early on a wrong path rather than after the run. */
export function loadDirectusSummary(file: string | undefined): DirectusRun | null {
  if (!file) return null;
  const summary = JSON.parse(fs.readFileSync(file, 'utf8')) as DirectusSummary;
  if (!summary.results || !summary.setup) throw new Error(`${file}: not a peer-directus summary.json`);
  return { path: file, writtenAt: fs.statSync(file).mtime, summary };
}

const cell = (v: unknown) => (v === undefined || v === null ? '' : String(v));

/** The Directus section: versions, settings and the peer's own figures, including its foreign-load guard. */
export function directusSection(d: DirectusRun): string {
  const s = d.summary;
  const v = s.versions;
  const lines = [
    `Directus ${v.directus} (@directus/api ${v['@directus/api']}, Node ${v.node}, PostgreSQL ${v.postgresql}, ` +
      `${v.postgresql_mode} mode), summary \`${d.path}\` written ${d.writtenAt.toISOString().slice(0, 16)} UTC. ` +
      `Settings: ${Object.entries(s.directus_settings)
        .map(([k, x]) => `${k}=${String(x)}`)
        .join(', ')}.`,
    `Seeded ${s.setup.seed_items} articles through its API in ${(s.setup.seed_ms / 1000).toFixed(1)} s ` +
      `(${Math.round((s.setup.seed_items * 1000) / s.setup.seed_ms)}/s); sampled id ${s.setup.sample_id}` +
      (s.after?.directus_rss_mb ? `; RSS after the run ${s.after.directus_rss_mb} MB.` : '.'),
    '',
    '| scenario | req/s | p50 ms | p99 ms | non-2xx | server CPU ms/req | foreign CPU % of a core | attempts |',
    '| --- | --- | --- | --- | --- | --- | --- | --- |',
  ];
  for (const [key, r] of Object.entries(s.results)) {
    if (r.error) {
      lines.push(`| ${key} ${r.name} | ${r.error} | | | | | | |`);
      continue;
    }
    const disturbed = s.detail?.[key]?.disturbed ? ' (disturbed)' : '';
    lines.push(
      `| ${key} ${r.name} | ${cell(r.rps)} | ${cell(r.p50_ms)} | ${cell(r.p99_ms)} | ${cell(r.non2xx)} | ` +
        `${cell(r.directus_cpu_ms_per_req)} | ${cell(r.foreign_cpu_pct)}${disturbed} | ${cell(r.attempts)} |`,
    );
  }
  return lines.join('\n');
}
