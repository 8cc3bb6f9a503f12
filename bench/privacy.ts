import { readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { createDatabase } from '../src/adapters/db/create-db.ts';
import { startServer, type ServerProcess } from '../test/support/server-process.ts';
import { BENCH_ADMIN, benchServer } from './server.ts';

/**
 * Personal data of a heavy user: their export (issue budget: memory stays flat for a user with 100 000 events) and
 * their erasure, beside the erasure of a plain user. The heavy user has `EVENTS` events of their own (seeded straight
 * into the log), `SESSIONS` sessions, a consent of each type, `ITEMS` items they wrote and a subject-access export.
 * Reports the export's time, bytes and the server's peak RSS, then each erasure's time and what its proof lists.
 * `npm run bench:privacy` (PostgreSQL at BENCH_PG_URL); `BENCH_STORE=pglite npm run bench:privacy` (embedded).
 */
const EVENTS = Number(process.env.EVENTS ?? 100_000);
const SESSIONS = Number(process.env.SESSIONS ?? 50);
const ITEMS = Number(process.env.ITEMS ?? 200);
const EMBEDDED = process.env.BENCH_STORE === 'pglite';
const HEAVY = { email: 'heavy@example.com', password: 'Weighty-pass-7319!x' };
const PLAIN = { email: 'plain@example.com', password: 'Simple-pass-8642!y' };

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

/** The statement that writes `EVENTS` events whose actor is `$1` ($2: how many). */
const SEED = `insert into events (site_id, stream_id, stream_version, event_id, type, schema_version, data, metadata, created_at)
  select 'bench', 'bench/bulk-note/' || (g / 1000), (g % 1000) + 1, gen_random_uuid(), 'BulkNoteWritten', 1,
         jsonb_build_object('n', g, 'text', repeat('x', 120), 'at', now()),
         jsonb_build_object('siteId', 'bench', 'actor', jsonb_build_object('type', 'user', 'id', $1::text),
                            'correlationId', 'bulk-' || g, 'causationId', null, 'requestId', null,
                            'occurredAt', now()),
         now()
  from generate_series(0, $2::int - 1) g`;

const env = { SVC_LOGIN_MAX_PER_IP: '100000', SVC_RATE_LIMIT_DISABLED: 'true' };

/** The server under test, with a way to seed the log under it (PostgreSQL: live; PGlite: stopped, then restarted). */
async function start() {
  if (!EMBEDDED) {
    const b = await benchServer('svc_bench_privacy', env);
    const seed = async (userId: string) => {
      const c = new pg.Client({ connectionString: b.url });
      await c.connect();
      try {
        await c.query(SEED, [userId, EVENTS]);
        await c.query('analyze events');
      } finally {
        await c.end();
      }
    };
    return { server: () => b.server, seed, close: b.close, store: 'PostgreSQL 15' };
  }
  const dir = await mkdtemp(path.join(tmpdir(), 'svc-bench-privacy-'));
  const serverEnv = {
    ...env,
    SVC_DATA_DIR: dir,
    SVC_ADMIN_EMAIL: BENCH_ADMIN.email,
    SVC_ADMIN_PASSWORD: BENCH_ADMIN.password,
    SVC_SITE_ID: 'bench',
  };
  let server: ServerProcess = await startServer(serverEnv);
  const stop = async () => {
    server.child.kill('SIGTERM');
    await server.exited;
  };
  const seed = async (userId: string) => {
    await stop();
    const database = await createDatabase({ kind: 'pglite', dataDir: dir });
    try {
      const text = SEED.replace('$1::text', `'${userId.replace(/'/g, "''")}'`).replace('$2::int', String(EVENTS));
      const head = async () =>
        (
          await sql<{ cp: string | null }>`select transaction_id::text || ':' || global_position as cp from events
            order by global_position desc limit 1`.execute(database.owner)
        ).rows[0]?.cp ?? null;
      const before = await head();
      await sql.raw(text).execute(database.owner);
      await sql`analyze events`.execute(database.owner);
      // No projector or reactor takes `BulkNoteWritten`, and this bench has no release or webhook for the reactors
      // (release publisher, webhook dispatcher, …) to act on: they start after the seeded events, so the restart does
      // not spend minutes passing over them (the PostgreSQL run does that in the background).
      const after = await head();
      await sql`update projection_state set checkpoint = ${after} where checkpoint = ${before}`.execute(database.owner);
      await sql`update reactor_state set checkpoint = ${after}`.execute(database.owner);
    } finally {
      await database.close();
    }
    server = await startServer(serverEnv);
  };
  const close = async () => {
    await stop();
    await rm(dir, { recursive: true, force: true });
  };
  return { server: () => server, seed, close, store: 'PGlite (embedded)' };
}

const bench = await start();
const base = () => bench.server().url;
const api = async (token: string | null, method: string, url: string, body?: unknown) => {
  const res = await fetch(`${base()}${url}`, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      'x-svc-site': 'bench',
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${text}`);
  return text ? (JSON.parse(text) as { data: Record<string, unknown> }).data : null;
};
const login = async (who: { email: string; password: string }) =>
  (await api(null, 'POST', '/api/v1/auth/login', who))!.token as string;

async function download(token: string, format: string): Promise<{ ms: number; bytes: number }> {
  const t0 = Date.now();
  const res = await fetch(`${base()}/api/v1/me/data-export?format=${format}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  if (!res.ok || !res.body) throw new Error(`export: ${res.status} ${await res.text()}`);
  let bytes = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) bytes += chunk.length;
  return { ms: Date.now() - t0, bytes };
}

try {
  let admin = await login(BENCH_ADMIN);
  await api(admin, 'POST', '/api/v1/collections', { name: 'notes' });
  await api(admin, 'POST', '/api/v1/fields/notes', { field: 'title', type: 'string' });
  const people = new Map<string, string>();
  for (const [who, names] of [
    [HEAVY, { firstName: 'Henrietta', lastName: 'Heavyweight' }],
    [PLAIN, { firstName: 'Paulus', lastName: 'Plainsman' }],
  ] as const) {
    const made = await api(admin, 'POST', '/api/v1/users', { ...who, ...names, roleKey: 'editor' });
    people.set(who.email, made!.id as string);
  }
  const t0 = Date.now();
  await bench.seed(people.get(HEAVY.email)!);
  console.error(`seeded ${EVENTS} events in ${Date.now() - t0} ms`);
  admin = await login(BENCH_ADMIN);
  let heavy = '';
  for (let i = 0; i < SESSIONS; i++) heavy = await login(HEAVY);
  for (const type of ['marketing', 'analytics', 'personalization', 'functional', 'sale_share'])
    await api(heavy, 'PUT', `/api/v1/me/consents/${type}`, { granted: true, source: 'banner', version: 'v1' });
  for (let i = 0; i < ITEMS; i += 100)
    await api(
      heavy,
      'POST',
      '/api/v1/items/notes',
      Array.from({ length: Math.min(100, ITEMS - i) }, (_, n) => ({ title: `note ${i + n}` })),
    );
  await api(admin, 'POST', '/api/v1/admin/sar', { userId: people.get(HEAVY.email) });
  await login(PLAIN);

  const pid = bench.server().child.pid!;
  const rows: string[] = [];
  for (const format of ['json', 'zip', 'json', 'zip'] as const) {
    const before = peakRss(pid);
    const reset = resetPeak(pid);
    const start = peakRss(pid);
    const r = await download(heavy, format);
    rows.push(
      `| ${format} | ${EVENTS.toLocaleString('en')} | ${r.ms} ms | ${(r.bytes / 1024 / 1024).toFixed(1)} MB | ${
        reset ? `${start} → ${peakRss(pid)} MB` : `${before} → ${peakRss(pid)} MB (since start)`
      } |`,
    );
  }
  console.log(`${bench.store}, ${new Date().toISOString().slice(0, 10)}\n`);
  console.log(
    [
      '| format | events | time | size | server peak RSS (before → during) |',
      '| ------ | -----: | ---: | ---: | --------------------------------- |',
      ...rows,
    ].join('\n'),
  );

  const erasures: string[] = [];
  for (const [label, who] of [
    [`heavy: ${EVENTS.toLocaleString('en')} events, ${SESSIONS} sessions, 5 consents, ${ITEMS} items, 1 export`, HEAVY],
    ['plain: one session', PLAIN],
  ] as const) {
    const e0 = Date.now();
    const proof = (await api(admin, 'POST', '/api/v1/admin/erasure', {
      userId: people.get(who.email),
      reason: 'bench',
    })) as {
      revoked: { sessions: number; apiKeys: number };
      scrubbed: { readModels: string[]; mailOutbox: number; sarExports?: number };
      shredded: string[];
      status: string;
    };
    const ms = Date.now() - e0;
    if (proof.status !== 'completed') throw new Error(`erasure of ${who.email}: ${proof.status}`);
    erasures.push(
      `| ${label} | ${ms} ms | ${proof.revoked.sessions} sessions, ${proof.revoked.apiKeys} API keys | ` +
        `${proof.scrubbed.readModels.join(', ')}; ${proof.scrubbed.mailOutbox} mails; ` +
        `${proof.scrubbed.sarExports ?? 0} export files | ${proof.shredded.length} keys |`,
    );
  }
  console.log(
    [
      '',
      '| erased | time | revoked | scrubbed | shredded |',
      '| ------ | ---: | ------- | -------- | -------- |',
      ...erasures,
    ].join('\n'),
  );
} finally {
  await bench.close();
}
