import { readFileSync, writeFileSync } from 'node:fs';
import pg from 'pg';
import { BENCH_ADMIN, benchServer } from './server.ts';

/**
 * Personal-data export (issue budget: memory stays flat for a user with 100 000 events): seeds `EVENTS` events
 * whose actor is the bench admin straight into the log on PostgreSQL, then downloads GET /me/data-export as JSON and
 * as a zip, reporting the time, the bytes and the server's peak RSS for each. `npm run bench:privacy`.
 */
const EVENTS = Number(process.env.EVENTS ?? 100_000);

/** Peak resident memory of a process so far (VmHWM), in MB. */
const peakRss = (pid: number) => {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Math.round(Number(m[1]) / 1024) : NaN;
};

/** Starts the peak over from the current RSS (Linux `clear_refs` 5), so each download has a peak of its own. */
const resetPeak = (pid: number) => {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
};

async function seed(url: string): Promise<string> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const u = await c.query<{ user_id: string }>('select user_id from users where lower(email) = $1', [
      BENCH_ADMIN.email,
    ]);
    const userId = u.rows[0]!.user_id;
    const t0 = Date.now();
    await c.query(
      `insert into events (site_id, stream_id, stream_version, event_id, type, schema_version, data, metadata, created_at)
       select 'bench', 'bench/bulk-note/' || (g / 1000), (g % 1000) + 1, gen_random_uuid(), 'BulkNoteWritten', 1,
              jsonb_build_object('n', g, 'text', repeat('x', 120), 'at', now()),
              jsonb_build_object('siteId', 'bench', 'actor', jsonb_build_object('type', 'user', 'id', $1::text),
                                 'correlationId', 'bulk-' || g, 'causationId', null, 'requestId', null,
                                 'occurredAt', now()),
              now()
       from generate_series(0, $2::int - 1) g`,
      [userId, EVENTS],
    );
    await c.query('analyze events');
    console.error(`seeded ${EVENTS} events in ${Date.now() - t0} ms`);
    return userId;
  } finally {
    await c.end();
  }
}

async function download(url: string, token: string): Promise<{ ms: number; bytes: number }> {
  const t0 = Date.now();
  const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  if (!res.ok || !res.body) throw new Error(`export: ${res.status} ${await res.text()}`);
  let bytes = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) bytes += chunk.length;
  return { ms: Date.now() - t0, bytes };
}

const { server, login, close, url } = await benchServer('svc_bench_privacy');
const pid = server.child.pid!;
try {
  const token = await login();
  await seed(url);
  // One small export first: the code paths are loaded before anything is measured.
  const rows: string[] = [];
  for (const format of ['json', 'zip', 'json', 'zip'] as const) {
    const before = peakRss(pid);
    const reset = resetPeak(pid);
    const base = peakRss(pid);
    const r = await download(`${server.url}/api/v1/me/data-export?format=${format}`, token);
    rows.push(
      `| ${format} | ${EVENTS.toLocaleString('en')} | ${r.ms} ms | ${(r.bytes / 1024 / 1024).toFixed(1)} MB | ${
        reset ? `${base} → ${peakRss(pid)} MB` : `${before} → ${peakRss(pid)} MB (since start)`
      } |`,
    );
  }
  console.log(
    [
      '| format | events | time | size | server peak RSS (before → during) |',
      '| ------ | -----: | ---: | ---: | --------------------------------- |',
      ...rows,
    ].join('\n'),
  );
} finally {
  await close();
}
