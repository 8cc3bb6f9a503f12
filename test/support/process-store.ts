import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { ServerProcess } from './server-process.ts';

/**
 * Where a test's server processes keep their data: an embedded data directory by default, or a schema of its own
 * on TEST_DATABASE_URL (search_path through the URL's options). `env` is the server's database environment,
 * `create` and `drop` make and remove the schema (and the directory).
 */
export function processStore(name: string) {
  const url = process.env.TEST_DATABASE_URL;
  const schema = `${name}_${randomBytes(4).toString('hex')}`;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `svc-${name}-`));
  const admin = async (sql: string) => {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    await c.query(sql);
    await c.end();
  };
  return {
    url,
    schema,
    dir,
    env(): Record<string, string> {
      if (!url) return { SVC_DATA_DIR: dir, DATABASE_URL: '' };
      const u = new URL(url);
      u.searchParams.set('options', `-c search_path=${schema}`);
      return { DATABASE_URL: u.toString() };
    },
    create: async () => {
      if (url) await admin(`create schema "${schema}"`);
    },
    drop: async () => {
      fs.rmSync(dir, { recursive: true, force: true });
      if (!url) return;
      // Dropping a schema locks what its objects depend on (the shared extensions' functions); another test file's
      // schema being made or dropped at the same moment can meet it in a deadlock, which PostgreSQL resolves by
      // failing one of them: that one tries again.
      for (let attempt = 1; ; attempt++) {
        try {
          await admin(`drop schema if exists "${schema}" cascade`);
          return;
        } catch (err) {
          if ((err as { code?: string }).code !== '40P01' || attempt >= 5) throw err;
          await new Promise((r) => setTimeout(r, 100 * attempt));
        }
      }
    },
  };
}

/** Logs a server process in with the setup admin's credentials. */
export async function loginTo(server: ServerProcess, who: { email: string; password: string }): Promise<string> {
  const res = await fetch(`${server.url}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(who),
  });
  return ((await res.json()) as { data: { token: string } }).data.token;
}
