import pg from 'pg';
import { startServer, type ServerProcess } from '../test/support/server-process.ts';

export const BENCH_PG_URL = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432';
export const BENCH_ADMIN = { email: 'bench@example.com', password: 'Load-test-pass-1234!' };

async function admin(sql: string): Promise<void> {
  const c = new pg.Client({ connectionString: `${BENCH_PG_URL}/postgres` });
  await c.connect();
  await c.query(sql);
  await c.end();
}

/** A server on a fresh PostgreSQL database of its own (with `settings`), set up with the bench admin on site `bench`. */
export async function benchServer(database: string, env: Record<string, string> = {}, settings: string[] = []) {
  await admin(`drop database if exists ${database} with (force)`);
  await admin(`create database ${database}`);
  // Database settings (`alter database … set …`) hold for every session the server opens.
  for (const setting of settings) await admin(`alter database ${database} set ${setting}`);
  const server: ServerProcess = await startServer({
    DATABASE_URL: `${BENCH_PG_URL}/${database}`,
    SVC_ADMIN_EMAIL: BENCH_ADMIN.email,
    SVC_ADMIN_PASSWORD: BENCH_ADMIN.password,
    SVC_SITE_ID: 'bench',
    ...env,
  });
  const login = async (who: { email: string; password: string } = BENCH_ADMIN) => {
    const res = await fetch(`${server.url}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(who),
    });
    if (!res.ok) throw new Error(`login ${who.email}: ${res.status} ${await res.text()}`);
    return ((await res.json()) as { data: { token: string } }).data.token;
  };
  /** Stops the server and drops its database (kept with KEEP=1, for a look inside). */
  const close = async () => {
    server.child.kill('SIGTERM');
    await server.exited;
    if (!process.env.KEEP) await admin(`drop database if exists ${database} with (force)`);
  };
  return { server, login, close, url: `${BENCH_PG_URL}/${database}` };
}
