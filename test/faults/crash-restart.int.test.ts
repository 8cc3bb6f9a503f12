import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { createDatabase, type Database } from '../../src/adapters/db/create-db.ts';
import { startServer, type ServerProcess } from '../support/server-process.ts';
import { loginTo, processStore } from '../support/process-store.ts';

const ADMIN = { email: 'crash@example.com', password: 'Kill-nine-pass-1234' };
const store = processStore('crash');
const url = store.url;
const serverEnv = () => ({
  ...store.env(),
  SVC_ADMIN_EMAIL: ADMIN.email,
  SVC_ADMIN_PASSWORD: ADMIN.password,
  SVC_SITE_ID: 'main',
});

async function openDirect(): Promise<Database> {
  return url
    ? createDatabase({ kind: 'postgres', url, schema: store.schema })
    : createDatabase({ kind: 'pglite', dataDir: store.dir });
}

afterAll(() => store.drop());

const login = (server: ServerProcess) => loginTo(server, ADMIN);

describe('SIGKILL during writes', () => {
  it('restarts with the log and the read models in agreement, and nothing acknowledged lost', async () => {
    await store.create();
    const server = await startServer(serverEnv());
    const token = await login(server);
    const acknowledged: string[] = [];
    let n = 0;
    let stop = false;
    const writer = async () => {
      while (!stop) {
        const id = `crash-${n++}`;
        try {
          const res = await fetch(`${server.url}/api/v1/sites`, {
            method: 'POST',
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
            body: JSON.stringify({ id, name: id }),
          });
          if (res.status === 201) acknowledged.push(id);
        } catch {
          return; // the server died under us
        }
      }
    };
    const writers = Array.from({ length: 8 }, writer);
    await new Promise((r) => setTimeout(r, 400));
    server.child.kill('SIGKILL');
    await server.exited;
    stop = true;
    await Promise.all(writers);
    expect(acknowledged.length).toBeGreaterThan(0);

    const again = await startServer(serverEnv());
    const admin = await login(again);
    const list = async () =>
      (
        (await (
          await fetch(`${again.url}/api/v1/sites`, { headers: { authorization: `Bearer ${admin}` } })
        ).json()) as {
          data: { id: string }[];
        }
      ).data.map((s) => s.id);
    const sites = await list();
    for (const id of acknowledged) expect(sites).toContain(id);
    const rebuilt = await fetch(`${again.url}/api/v1/admin/projections/sites/rebuild`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin}` },
    });
    expect(rebuilt.status).toBe(200);
    expect(await list()).toEqual(sites);
    again.child.kill('SIGTERM');
    expect(await again.exited).toBe(0);

    const database = await openDirect();
    try {
      const fromLog = await sql<{ id: string }>`
        select data->>'siteId' as id from events where type = 'SiteCreated' order by 1`.execute(database.db);
      const fromModel = await sql<{ id: string }>`select site_id as id from sites order by 1`.execute(database.db);
      expect(fromLog.rows.length).toBeGreaterThanOrEqual(acknowledged.length + 1);
      expect(fromModel.rows).toEqual(fromLog.rows);
      const versions = await sql<{ bad: string }>`
        select count(*)::text as bad from streams s
        where s.version <> (select max(stream_version) from events e where e.site_id = s.site_id and e.stream_id = s.stream_id)`.execute(
        database.db,
      );
      expect(versions.rows[0]!.bad).toBe('0');
    } finally {
      await database.close();
    }
  }, 180_000);
});
