import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/kernel/clock.ts';
import { createTestApp, type TestApp } from '../../test/setup/app.ts';

/** The flows read model is the log's: rebuilt from it, it equals what the live projection built. */
let t: TestApp;
let admin: string;
const clock = new ManualClock(new Date('2026-05-01T00:00:00Z'));
const call = async (method: 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object) => {
  const res = await t.call({ method, url, as: admin, site: 'main', ...(payload ? { payload } : {}) });
  expect(res.statusCode, res.body).toBeLessThan(300);
  return res.statusCode === 204 ? null : res.json().data;
};
const dump = async () => {
  const r = await sql<Record<string, unknown>>`select * from flows order by site_id, flow_id`.execute(
    t.deps.database.owner,
  );
  return r.rows.map((row) => JSON.parse(JSON.stringify(row)) as unknown);
};
const graph = { nodes: [{ id: 'a', operation: 'log', options: { message: 'hi' } }], edges: [] };

beforeAll(async () => {
  t = await createTestApp({ clock });
  admin = await t.setup();
  const a = await call('POST', '/api/v1/flows', {
    name: 'a',
    trigger: 'schedule',
    triggerOptions: { cron: '0 * * * *' },
  });
  const b = await call('POST', '/api/v1/flows', { name: 'b', trigger: 'webhook', graph });
  await call('POST', '/api/v1/flows', { name: 'c', trigger: 'manual' });
  clock.advance(60_000);
  await call('PATCH', `/api/v1/flows/${a.id}`, { status: 'active', graph });
  await call('POST', `/api/v1/flows/${b.id}/token`);
  const d = await call('POST', '/api/v1/flows', { name: 'd', trigger: 'manual' });
  await call('DELETE', `/api/v1/flows/${d.id}`);
});
afterAll(() => t.close());

describe('flows read model', () => {
  it('rebuilt from the log equals its live projection', async () => {
    const live = await dump();
    expect(live).toHaveLength(3);
    expect(live).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: 'a', status: 'active', next_run_at: '2026-05-01T01:00:00.000Z', version: 2 }),
        expect.objectContaining({ name: 'b', has_token: true, version: 2 }),
      ]),
    );
    await t.deps.engine.rebuild('flows');
    expect(await dump()).toEqual(live);
  });
});
