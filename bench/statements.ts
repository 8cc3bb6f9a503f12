import fs from 'node:fs';
import { benchServer } from './server.ts';
import { seed } from './seed.ts';
import { SCENARIOS, requestHeaders, resolvePath } from './scenarios.ts';

/**
 * SQL statements per request, counted by PostgreSQL itself: the bench database gets `log_statement = 'all'` (for its
 * own sessions only), and for each scenario the lines of PostgreSQL's log that name that database are counted while
 * the scenario's requests run one after the other. An idle window of the same length is counted too: background
 * work (projection and reactor polls) shows there, and is subtracted. Needs read access to the server log
 * (BENCH_PG_LOG, Debian's cluster log by default) and a superuser on BENCH_PG_URL.
 */
const LOG = process.env.BENCH_PG_LOG ?? '/var/log/postgresql/postgresql-15-main.log';
const DB = process.env.BENCH_DB_STATEMENTS ?? 'svc_bench_statements';
const N = Number(process.env.STATEMENT_REQUESTS ?? 200);
const SITE = 'bench';

/** Log lines written since `from` (a byte offset) that come from a session on the bench database. */
function linesSince(from: number): string[] {
  const size = fs.statSync(LOG).size;
  if (size <= from) return [];
  const fd = fs.openSync(LOG, 'r');
  try {
    const buf = Buffer.alloc(size - from);
    fs.readSync(fd, buf, 0, buf.length, from);
    return buf
      .toString('utf8')
      .split('\n')
      .filter((l) => l.includes(`@${DB} `));
  } finally {
    fs.closeSync(fd);
  }
}

/** Statements executed: simple-protocol `statement:` lines and extended-protocol `execute` lines. */
const statements = (lines: string[]) => lines.filter((l) => /LOG: {2}(statement|execute [^:]*):/.test(l));

async function main(): Promise<void> {
  fs.accessSync(LOG, fs.constants.R_OK);
  // Every session of the bench database logs its statements (set before the server opens any).
  const bench = await benchServer(DB, {}, ["log_statement = 'all'"]);
  try {
    const token = await bench.login();
    const seeded = await seed(bench.server.url, token, SITE, Number(process.env.SEED_N ?? 500));
    const url = bench.server.url;
    const send = async (s: (typeof SCENARIOS)[number]) => {
      for (let attempt = 0; ; attempt++) {
        const res = await fetch(`${url}${resolvePath(s, seeded.sampleId)}`, {
          method: s.method,
          headers: requestHeaders(s, token, SITE),
          body: s.body ? JSON.stringify(s.body()) : undefined,
        });
        await res.arrayBuffer();
        if (res.status < 300) return;
        if (attempt > 3) throw new Error(`${s.key}: ${res.status}`);
      }
    };
    const rows: string[] = [];
    for (const s of SCENARIOS) {
      for (let i = 0; i < 5; i++) await send(s); // warm: caches, named statements, pool connections
      await new Promise((r) => setTimeout(r, 300));
      const start = fs.statSync(LOG).size;
      const t0 = performance.now();
      for (let i = 0; i < N; i++) await send(s);
      const ms = performance.now() - t0;
      await new Promise((r) => setTimeout(r, 300));
      const busy = statements(linesSince(start)).length;
      const idleStart = fs.statSync(LOG).size;
      await new Promise((r) => setTimeout(r, ms));
      const idle = statements(linesSince(idleStart)).length;
      const per = (busy - idle) / N;
      rows.push(`| ${s.name} | ${per.toFixed(2)} | ${busy} | ${idle} |`);
      console.error(`[statements] ${s.key}: ${per.toFixed(2)} per request (${busy} in ${N} requests, ${idle} idle)`);
    }
    // Idle: nothing sent for 10 s after the last scenario's work settled.
    await new Promise((r) => setTimeout(r, 1000));
    const idleFrom = fs.statSync(LOG).size;
    await new Promise((r) => setTimeout(r, 10_000));
    const idlePerSecond = statements(linesSince(idleFrom)).length / 10;
    console.error(`[statements] idle: ${idlePerSecond} per second`);
    console.log(
      [
        `Statements per request, from PostgreSQL's log (\`log_statement = 'all'\` on the bench database), ${N} requests per scenario one after the other, warm:`,
        '',
        '| request | statements per request | logged while sending | logged in an idle window as long |',
        '| --- | --- | --- | --- |',
        ...rows,
        '',
        `Idle (nothing sent for 10 s): ${idlePerSecond} statements a second.`,
      ].join('\n'),
    );
  } finally {
    await bench.close();
  }
}

await main();
