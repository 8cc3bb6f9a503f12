import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { DirectusSummary } from './directus-summary.ts';
import { LOAD, runMode, SEED_N } from './mode.ts';
import { writeSection } from './report.ts';
import { SCENARIOS } from './scenarios.ts';

/**
 * Interleaved rounds against Directus on one machine: Directus (../shared/peer-directus/run.sh, its schema cache
 * frozen unless DIRECTUS_SCHEMA_FREEZE=false), then ours on PostgreSQL (then the floor, ours stopped), ROUNDS times
 * (default 3), with the same seed, connections and durations. Reports each scenario's median and spread and the
 * ratio of the medians, then the statements per request and while idle (bench/statements.ts), into BENCH_OUT
 * (docs/benchmarks.md) between `<!-- bench:rounds -->` markers. Run as root (the peer needs it).
 */
const env = process.env;
const ROUNDS = Number(env.ROUNDS ?? 3);
const PEER = env.PEER_SCRIPT ?? path.join(import.meta.dirname, '..', '..', 'shared', 'peer-directus', 'run.sh');
const OUT = env.BENCH_OUT ?? path.join(import.meta.dirname, '..', 'docs', 'benchmarks.md');
const BASE = env.PEER_BASE_DIR ?? '/tmp/directus-peer';
const KEYS = ['a', 'b', 'c', 'd', 'e'];

/** One Directus run in a work dir of its own (the first round's install reused); its results by scenario key. */
function directusRound(round: number, install: string | null): { dir: string; rps: Map<string, number> } {
  const dir = path.join(BASE, `round-${process.pid}-${round}`);
  const r = spawnSync('bash', [PEER], {
    stdio: ['ignore', 'inherit', 'inherit'],
    env: {
      ...env,
      WORK_DIR: dir,
      ...(install ? { INSTALL_DIR: install } : {}),
      SEED_N: String(SEED_N),
      DURATION: String(LOAD.duration),
      WARMUP: String(LOAD.warmup),
      CONNECTIONS: String(LOAD.connections),
      SCENARIOS: KEYS.join(','),
      DIRECTUS_SCHEMA_FREEZE: env.DIRECTUS_SCHEMA_FREEZE ?? 'true',
    },
  });
  if (r.status !== 0) throw new Error(`the Directus peer failed (exit ${r.status})`);
  const summary = JSON.parse(fs.readFileSync(path.join(dir, 'summary.json'), 'utf8')) as DirectusSummary;
  const rps = new Map<string, number>();
  for (const k of KEYS) {
    const v = summary.results[k]?.rps;
    if (v !== undefined) rps.set(k, v);
  }
  return { dir, rps };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const spread = (xs: number[]) => `${Math.round(Math.min(...xs))}–${Math.round(Math.max(...xs))}`;

const peer: Map<string, number[]> = new Map();
const ours: Map<string, number[]> = new Map();
const add = (m: Map<string, number[]>, k: string, v: number | undefined) => {
  if (v !== undefined) m.set(k, [...(m.get(k) ?? []), v]);
};
let install: string | null = env.INSTALL_DIR ?? null;
for (let i = 0; i < ROUNDS; i++) {
  console.error(`[rounds] round ${i + 1}/${ROUNDS}: Directus`);
  const d = directusRound(i, install);
  install ??= d.dir;
  for (const [k, v] of d.rps) add(peer, k, v);
  console.error(`[rounds] round ${i + 1}/${ROUNDS}: ours`);
  const run = await runMode('postgres');
  for (const [k, m] of Object.entries(run.results)) add(ours, k, m.rps);
}

const statements = spawnSync(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, 'statements.ts')], {
  env: { ...env, SEED_N: '1000' },
  encoding: 'utf8',
  stdio: ['ignore', 'pipe', 'inherit'],
});

const rows = SCENARIOS.filter((s) => ours.has(s.key) || peer.has(s.key)).map((s) => {
  const o = ours.get(s.key) ?? [];
  const p = peer.get(s.key) ?? [];
  const ratio = o.length && p.length ? `${(median(o) / median(p)).toFixed(2)}×` : '';
  return `| ${s.name} | ${p.length ? `${Math.round(median(p))} (${spread(p)})` : ''} | ${o.length ? `${Math.round(median(o))} (${spread(o)})` : ''} | ${ratio} |`;
});
const floor = ours.get('floor') ?? [];
const c = ours.get('c') ?? [];
const body = [
  `### Interleaved rounds against Directus (${new Date().toISOString().slice(0, 10)})`,
  '',
  `${ROUNDS} rounds, each Directus (schema cache frozen: ${env.DIRECTUS_SCHEMA_FREEZE ?? 'true'}) then ours on PostgreSQL, ` +
    `${SEED_N} articles, ${LOAD.connections} connections, ${LOAD.warmup} s warm-up, ${LOAD.duration} s measured; ` +
    'req/s as median (lowest–highest); the floor (bare fastify + pg, read by id) ran with ours stopped.',
  '',
  '| scenario | Directus | ours | ours / Directus |',
  '| --- | --- | --- | --- |',
  ...rows,
  ...(floor.length && c.length
    ? [`| c / floor | | ${Math.round(median(floor))} (${spread(floor)}) | ${(median(c) / median(floor)).toFixed(2)}× |`]
    : []),
  '',
  statements.status === 0 ? statements.stdout.trim() : '(statement counts: bench/statements.ts failed)',
].join('\n');
writeSection(OUT, 'bench:rounds', body);
console.error(`[rounds] wrote ${OUT}`);
