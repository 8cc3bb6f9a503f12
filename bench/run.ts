import path from 'node:path';
import fs from 'node:fs';
import { loadDirectusSummary, directusSection } from './directus-summary.ts';
import { itemsSection, siteSection, writeSection, type ModeRun } from './report.ts';
import { SCENARIOS } from './scenarios.ts';
import { LOAD, runMode } from './mode.ts';

/**
 * Starts the service (embedded and/or PostgreSQL), seeds it like the Directus peer benchmark, loads it with
 * autocannon the way the peer does, and writes docs/benchmarks.md (or BENCH_OUT) beside the peer's summary.json.
 */
const env = process.env;
const MODES = (env.BENCH_MODES ?? 'embedded,postgres').split(',');
const OUT = env.BENCH_OUT ?? path.join(import.meta.dirname, '..', 'docs', 'benchmarks.md');

const directus = loadDirectusSummary(env.DIRECTUS_SUMMARY);
const startedAt = new Date();
const runs: ModeRun[] = [];
for (const mode of MODES) runs.push(await runMode(mode));
const info = { startedAt, load: LOAD, runs, directus };
fs.writeFileSync(`${OUT}.json`, JSON.stringify({ ...info, directus: directus?.path ?? null }, null, 2));
writeSection(OUT, 'bench:items', itemsSection(info), 'bench:ours');
if (runs.some((r) => SCENARIOS.some((s) => s.group === 'site' && r.results[s.key])))
  writeSection(OUT, 'bench:ours', siteSection(info));
if (directus) writeSection(OUT, 'bench:directus', directusSection(directus));
console.error(`[bench] wrote ${OUT} and ${OUT}.json`);
