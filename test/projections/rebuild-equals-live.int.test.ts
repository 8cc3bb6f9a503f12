import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, createTestApp, type TestApp } from '../setup/app.ts';

/**
 * The read models without a rebuild test of their own slice are the log's too: replayed into twin tables and swapped
 * in, each equals what the live (inline or async) projection built.
 */
let t: TestApp;
let admin: string;
const call = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown) =>
  t.call({ method, url, payload: payload as object, as: admin, site: 'main' });

const MODELS: Record<string, Record<string, string>> = {
  instance: { instance_state: 'site_id' },
  users: { users: 'user_id', user_sites: 'site_id, user_id' },
  sessions: { sessions: 'session_id' },
  releases: { releases: 'site_id, release_id' },
  'site-activity': { site_activity: 'site_id' },
};

const dump = async (name: string) => {
  const out: Record<string, unknown[]> = {};
  for (const [table, order] of Object.entries(MODELS[name]!)) {
    const r = await sql<Record<string, unknown>>`select * from ${sql.table(table)} order by ${sql.raw(order)}`.execute(
      t.deps.database.owner,
    );
    out[table] = JSON.parse(JSON.stringify(r.rows)) as unknown[];
  }
  return out;
};

beforeAll(async () => {
  t = await createTestApp();
  admin = await t.setup();
  await call('PATCH', '/api/v1/me/preferences', { theme: 'dark', density: 'compact' });
  await call('PATCH', '/api/v1/me/preferences', { theme: null, lang: 'vi' });
  const login = await t.call({ method: 'POST', url: '/api/v1/auth/login', payload: ADMIN });
  const { refreshToken } = login.json().data as { refreshToken: string };
  const refreshed = await t.call({ method: 'POST', url: '/api/v1/auth/refresh', payload: { refreshToken } });
  const next = (refreshed.json().data as { refreshToken: string }).refreshToken;
  await t.call({ method: 'POST', url: '/api/v1/auth/logout', payload: { refreshToken: next } });
  const kept = await call('POST', '/api/v1/releases', { name: 'Kept', publishAt: '2099-01-01T00:00:00Z' });
  const renamed = (kept.json().data as { id: string }).id;
  await call('PATCH', `/api/v1/releases/${renamed}`, { name: 'Kept, renamed' });
  const gone = await call('POST', '/api/v1/releases', { name: 'Gone' });
  await call('DELETE', `/api/v1/releases/${(gone.json().data as { id: string }).id}`);
  await t.deps.drainAsync();
});
afterAll(() => t.close());

describe('read models rebuilt from the log', () => {
  it.each(Object.keys(MODELS))('%s equals its live projection', async (name) => {
    const live = await dump(name);
    for (const rows of Object.values(live)) expect(rows.length).toBeGreaterThan(0);
    await t.deps.engine.rebuild(name);
    expect(await dump(name)).toEqual(live);
  });
});
