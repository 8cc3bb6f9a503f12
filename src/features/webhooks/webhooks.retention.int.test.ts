import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';
import { ManualClock } from '../../kernel/clock.ts';
import { sendDueDeliveries, WEBHOOK_DISPATCHER } from './index.ts';
import { startReceiver, type Receiver } from './webhook-receiver.fixture.ts';

const DAY = 86_400_000;
let t: TestApp;
let admin: string;
let rx: Receiver;
const clock = new ManualClock(new Date());

beforeAll(async () => {
  rx = await startReceiver();
  t = await createTestApp({ clock, env: { SVC_WEBHOOK_ALLOW_PRIVATE: 'true' } });
  admin = await t.setup();
  await call('main', 'POST', '/api/v1/sites', { id: 'other', name: 'Other' });
  for (const site of ['main', 'other']) {
    await call(site, 'POST', '/api/v1/collections', { name: 'posts' });
    await call(site, 'POST', '/api/v1/fields/posts', { field: 'title', type: 'string' });
  }
});
afterAll(async () => {
  await t.close();
  await rx.close();
});

const call = async (site: string, method: 'GET' | 'POST' | 'PATCH', url: string, payload?: object) => {
  const res = await t.call({ method, url, as: admin, site, ...(payload ? { payload } : {}) });
  expect(res.statusCode, res.body).toBeLessThan(300);
  return res.json();
};
const webhook = async (site: string, path: string) => {
  const url = rx.url(`/${path}`);
  const { data } = await call(site, 'POST', '/api/v1/webhooks', { name: path, url, events: ['items.create'] });
  rx.expect(`/${path}`, data.secret);
  return data.id as string;
};
const statuses = async (site: string, id: string) =>
  ((await call(site, 'GET', `/api/v1/webhooks/${id}/deliveries`)).data as { status: string }[])
    .map((d) => d.status)
    .sort();
const dispatch = async () => {
  await t.deps.drainReactors(WEBHOOK_DISPATCHER);
  return sendDueDeliveries(t.deps, clock.now());
};
const item = (site: string, id: string) => call(site, 'POST', '/api/v1/items/posts', { id, title: id });
const run = async (site: string) => (await call(site, 'POST', '/api/v1/retention/run')).data.counts;

describe('retention of webhook deliveries', () => {
  it('prunes finished deliveries past the horizon, never pending or younger ones, nor another site’s', async () => {
    const ok = await webhook('main', 'ok');
    const down = await webhook('main', 'down');
    const off = await webhook('main', 'off');
    const elsewhere = await webhook('other', 'elsewhere');
    rx.answer('/down', 500);
    await item('main', 'a');
    await item('other', 'b');
    await t.deps.drainReactors(WEBHOOK_DISPATCHER);
    await call('main', 'PATCH', `/api/v1/webhooks/${off}`, { enabled: false });
    expect(await dispatch()).toMatchObject({ delivered: 2, failed: 1, abandoned: 1 });
    expect(await statuses('main', down)).toEqual(['pending']);

    clock.advance(31 * DAY);
    expect(await run('main')).toMatchObject({ webhook_deliveries: 2 });
    expect(await statuses('main', ok)).toEqual([]);
    expect(await statuses('main', off)).toEqual([]);
    expect(await statuses('main', down)).toEqual(['pending']);
    expect(await statuses('other', elsewhere)).toEqual(['delivered']);
    expect(await run('main')).toMatchObject({ webhook_deliveries: 0 });

    await item('main', 'c');
    await dispatch(); // `c`, and the delivery kept pending, are delivered now: young, so kept
    expect(await run('main')).toMatchObject({ webhook_deliveries: 0 });
    expect(await statuses('main', ok)).toEqual(['delivered']);
    expect(await statuses('main', down)).toEqual(['delivered', 'delivered']);

    expect(await run('other')).toMatchObject({ webhook_deliveries: 1 });
    expect(await statuses('other', elsewhere)).toEqual([]);
  });

  it('prunes again what a projection rebuild brought back, leaving the same rows', async () => {
    const ids = ((await call('main', 'GET', '/api/v1/webhooks')).data as { id: string }[]).map((w) => w.id);
    const snapshot = async () => Promise.all(ids.map((id) => statuses('main', id)));
    const before = await snapshot();
    await t.deps.engine.rebuild('webhooks');
    expect((await snapshot()).flat().length).toBeGreaterThan(before.flat().length);
    expect(await run('main')).toMatchObject({ webhook_deliveries: 2 });
    expect(await snapshot()).toEqual(before);
  });
});
