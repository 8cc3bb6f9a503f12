import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/kernel/clock.ts';
import { sendDueDeliveries, WEBHOOK_DISPATCHER } from '../../src/features/webhooks/index.ts';
import { createTestApp, type TestApp } from '../../test/setup/app.ts';

/** The webhooks read model is the log's: rebuilt from it, it equals what the live projection built. */
let t: TestApp;
let admin: string;
const clock = new ManualClock(new Date('2026-05-01T00:00:00Z'));
const call = async (method: 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object) => {
  const res = await t.call({ method, url, as: admin, site: 'main', ...(payload ? { payload } : {}) });
  expect(res.statusCode, res.body).toBeLessThan(300);
  return res.statusCode === 204 ? null : res.json().data;
};
const dump = async () => {
  const out: Record<string, unknown[]> = {};
  for (const [table, order] of [
    ['webhooks', 'site_id, webhook_id'],
    ['webhook_deliveries', 'seq'],
  ] as const) {
    const r = await sql<Record<string, unknown>>`select * from ${sql.table(table)} order by ${sql.raw(order)}`.execute(
      t.deps.database.owner,
    );
    out[table] = r.rows.map(({ seq: _, ...row }) => JSON.parse(JSON.stringify(row)) as unknown);
  }
  return out;
};

beforeAll(async () => {
  t = await createTestApp({ clock });
  admin = await t.setup();
  await call('POST', '/api/v1/collections', { name: 'posts' });
  // A name that never resolves (.invalid): saved, then every send is refused and recorded as a failed attempt.
  const a = await call('POST', '/api/v1/webhooks', {
    name: 'a',
    url: 'http://hooks.invalid:9/',
    events: ['items.create'],
  });
  const b = await call('POST', '/api/v1/webhooks', {
    name: 'b',
    url: 'http://hooks.invalid:9/',
    events: ['items.create'],
  });
  await call('POST', '/api/v1/webhooks', { name: 'c', url: 'https://in.example.com/', events: ['items.delete'] });
  await call('PATCH', `/api/v1/webhooks/${a.id}`, { name: 'a2', collections: ['posts'] });
  for (const id of ['p1', 'p2']) await call('POST', '/api/v1/items/posts', { id });
  await t.deps.drainReactors(WEBHOOK_DISPATCHER);
  await sendDueDeliveries(t.deps, clock.now());
  clock.advance(3600_000);
  await sendDueDeliveries(t.deps, clock.now());
  await call('PATCH', `/api/v1/webhooks/${b.id}`, { enabled: false });
  clock.advance(3600_000);
  await sendDueDeliveries(t.deps, clock.now());
});
afterAll(() => t.close());

describe('webhooks read model', () => {
  it('rebuilt from the log equals its live projection', async () => {
    const live = await dump();
    expect(live.webhooks).toHaveLength(3);
    expect(live.webhook_deliveries).toHaveLength(4);
    expect(live.webhook_deliveries!.map((d) => (d as { status: string }).status).sort()).toEqual([
      'abandoned',
      'abandoned',
      'pending',
      'pending',
    ]);
    await t.deps.engine.rebuild('webhooks');
    expect(await dump()).toEqual(live);
  });
});
