import { afterAll, describe, expect, it } from 'vitest';
import { startServer, type ServerProcess } from '../support/server-process.ts';
import { loginTo, processStore } from '../support/process-store.ts';

/**
 * SIGKILL while a large manifest is applied, then a restart: the schema is the old one or the new one, never a mix
 * (the apply is one append), and the same manifest then applies to the end. 600 fields keep the apply long enough
 * for the kills to land inside it while the whole test stays well under its limit on a loaded machine (each field
 * makes a partial index on the item table, and on the embedded database those grow with the table's index count).
 */
const ADMIN = { email: 'schema-owner@example.com', password: 'Kill-apply-pass-1234' };
const COLLECTIONS = 30;
const PER = 20;
const store = processStore('cfgcrash');
const serverEnv = () => ({
  ...store.env(),
  SVC_ADMIN_EMAIL: ADMIN.email,
  SVC_ADMIN_PASSWORD: ADMIN.password,
  SVC_SITE_ID: 'main',
});
afterAll(() => store.drop());

const manifest = {
  version: 'svc.config@v1',
  collections: Array.from({ length: COLLECTIONS }, (_, i) => ({ name: `c${i}`, versioning: true })),
  fields: Array.from({ length: COLLECTIONS }, (_, i) =>
    Array.from({ length: PER }, (_, j) => ({ collection: `c${i}`, field: `f${j}`, type: 'string' })),
  ).flat(),
};

async function exportOf(server: ServerProcess, token: string) {
  const res = await fetch(`${server.url}/api/v1/config/export?scope=schema`, {
    headers: { authorization: `Bearer ${token}`, 'x-svc-site': 'main' },
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: { collections: unknown[]; fields: unknown[] } }).data;
}
const apply = (server: ServerProcess, token: string) =>
  fetch(`${server.url}/api/v1/config/import?mode=merge`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'x-svc-site': 'main', 'content-type': 'application/json' },
    body: JSON.stringify(manifest),
  });

describe('SIGKILL during a config apply', () => {
  it('leaves the old schema or the new one, never a mix', async () => {
    await store.create();
    for (const delayMs of [30, 150]) {
      const server = await startServer(serverEnv());
      const token = await loginTo(server, ADMIN);
      const before = await exportOf(server, token);
      const sent = apply(server, token).catch(() => null);
      await new Promise((r) => setTimeout(r, delayMs));
      server.child.kill('SIGKILL');
      await server.exited;
      await sent;
      const again = await startServer(serverEnv());
      try {
        const t2 = await loginTo(again, ADMIN);
        const after = await exportOf(again, t2);
        const whole = after.collections.length === COLLECTIONS && after.fields.length === COLLECTIONS * PER;
        const untouched =
          after.collections.length === before.collections.length && after.fields.length === before.fields.length;
        expect(whole || untouched, `${after.collections.length} collections, ${after.fields.length} fields`).toBe(true);
        if (whole) break;
      } finally {
        again.child.kill('SIGTERM');
        await again.exited;
      }
    }
    // Whatever the kills left, the manifest applies to the end.
    const last = await startServer(serverEnv());
    try {
      const token = await loginTo(last, ADMIN);
      expect((await apply(last, token)).status).toBe(200);
      const done = await exportOf(last, token);
      expect(done.collections).toHaveLength(COLLECTIONS);
      expect(done.fields).toHaveLength(COLLECTIONS * PER);
    } finally {
      last.child.kill('SIGTERM');
      await last.exited;
    }
  }, 300_000);
});
