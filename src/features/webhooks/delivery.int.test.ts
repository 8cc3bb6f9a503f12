import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../kernel/clock.ts';
import { withSystem } from '../../kernel/tenancy/site.ts';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';
import { sendDueDeliveries, WEBHOOK_DISPATCHER } from './index.ts';
import { DELIVERY_WINDOW_MS } from './delivery.decider.ts';
import { RETRY_BASE_MS, RETRY_CAP_MS } from './delivery.sender.ts';
import { startReceiver, type Receiver } from './webhook-receiver.fixture.ts';

let t: TestApp;
let admin: string;
let rx: Receiver;
// Near the real time, so receivers can check the timestamp with `Webhook.verify`.
const clock = new ManualClock(new Date());
const COLLECTIONS = ['posts', 'notes', 'flaky', 'down', 'gone', 'rel', 'again', 'crash', 'reset'];

beforeAll(async () => {
  rx = await startReceiver();
  t = await createTestApp({ clock, env: { SVC_WEBHOOK_ALLOW_PRIVATE: 'true' } });
  admin = await t.setup();
  for (const name of COLLECTIONS) {
    await call('POST', '/api/v1/collections', { name });
    await call('POST', `/api/v1/fields/${name}`, { field: 'title', type: 'string' });
  }
});
afterAll(async () => {
  await t.close();
  await rx.close();
});

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';
const call = async (method: Method, url: string, payload?: unknown) => {
  const res = await t.call({
    method,
    url,
    as: admin,
    site: 'main',
    ...(payload === undefined ? {} : { payload: payload as object }),
  });
  expect(res.statusCode, res.body).toBeLessThan(300);
  return res.statusCode === 204 ? null : res.json();
};
/** A webhook posting to the receiver at `/<path>`, its secret registered there. */
const webhook = async (path: string, events: string[], collections: string[] | null) => {
  const { data } = await call('POST', '/api/v1/webhooks', { name: path, url: rx.url(`/${path}`), events, collections });
  rx.expect(`/${path}`, data.secret);
  return data.id as string;
};
const deliveries = async (id: string, query = '') => await call('GET', `/api/v1/webhooks/${id}/deliveries${query}`);
/** Runs the dispatcher over the log, then the sender's tick at the clock's time. */
const dispatch = async () => {
  await t.deps.drainReactors(WEBHOOK_DISPATCHER);
  return sendDueDeliveries(t.deps, clock.now());
};
const item = (collection: string, id: string, title = id) => call('POST', `/api/v1/items/${collection}`, { id, title });

describe('webhook deliveries', () => {
  it('delivers item changes signed, filtered by the webhooks events and collections', async () => {
    const posts = await webhook('posts', ['items.create', 'items.update', 'items.delete'], ['posts']);
    const all = await webhook('all-creates', ['items.create'], null);
    await item('posts', 'p1');
    await item('notes', 'n1');
    await call('PATCH', '/api/v1/items/posts/p1', { title: 'changed' });
    await call('DELETE', '/api/v1/items/posts/p1');
    expect(await dispatch()).toMatchObject({ delivered: 5, failed: 0 });

    const got = rx.at('/posts');
    expect(got.map((r) => r.payload.type).sort()).toEqual(['items.create', 'items.delete', 'items.update']);
    for (const r of rx.received) {
      expect(r.verified).toBe(true);
      expect(r.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
      expect(r.headers['content-type']).toBe('application/json');
    }
    const update = got.find((r) => r.payload.type === 'items.update')!;
    expect(update.payload.data).toEqual({
      site: 'main',
      collection: 'posts',
      id: 'p1',
      event: 'ItemUpdated',
      fields: ['title'],
    });
    expect(update.body).not.toContain('changed');
    const creates = rx.at('/all-creates').map((r) => `${r.payload.data.collection}/${r.payload.data.id}`);
    expect(creates.sort()).toEqual(['notes/n1', 'posts/p1']);

    const log = await deliveries(posts);
    expect(log.meta).toEqual({ total: 3, limit: 25, offset: 0 });
    expect(log.data.map((d: { status: string }) => d.status)).toEqual(['delivered', 'delivered', 'delivered']);
    expect(log.data.map((d: { event: string }) => d.event)).toEqual(['items.delete', 'items.update', 'items.create']);
    expect(log.data[0].attempts).toEqual([
      expect.objectContaining({ attempt: 1, status: 200, delivered: true, error: null }),
    ]);
    // webhook-id is the source event's id: the receiver's idempotency key.
    expect(got.map((r) => r.headers['webhook-id']).sort()).toEqual(
      log.data.map((d: { sourceEventId: string }) => d.sourceEventId).sort(),
    );
    const page = await deliveries(posts, '?limit=1&offset=1');
    expect(page.meta).toEqual({ total: 3, limit: 1, offset: 1 });
    expect(page.data.map((d: { event: string }) => d.event)).toEqual(['items.update']);
    expect(await dispatch()).toMatchObject({ delivered: 0, failed: 0 });
    await call('PATCH', `/api/v1/webhooks/${all}`, { enabled: false });
  });

  it('delivers release.published when a release is published', async () => {
    const id = await webhook('release', ['release.published'], ['rel']);
    await call('POST', '/api/v1/items/rel', { id: 'r1', title: 'r1', status: 'draft' });
    const release = await call('POST', '/api/v1/releases', {
      name: 'Launch',
      addItems: [{ collection: 'rel', itemId: 'r1', targetStatus: 'published' }],
    });
    await call('POST', `/api/v1/releases/${release.data.id}/publish`);
    await dispatch();
    const [r] = rx.at('/release');
    expect(rx.at('/release')).toHaveLength(1);
    expect(r!.verified).toBe(true);
    expect(r!.payload).toMatchObject({
      type: 'release.published',
      data: {
        site: 'main',
        id: release.data.id,
        status: 'published',
        items: [{ collection: 'rel', id: 'r1', outcome: 'published' }],
      },
    });
    expect((await deliveries(id)).data[0].status).toBe('delivered');
  });

  it('retries a failed delivery after its backoff and records every attempt', async () => {
    const id = await webhook('flaky', ['items.create'], ['flaky']);
    rx.answer('/flaky', 500, 'reset');
    await item('flaky', 'f1');
    expect(await dispatch()).toMatchObject({ failed: 1 });
    let [d] = (await deliveries(id)).data;
    expect(d).toMatchObject({ status: 'pending', attempts: [{ attempt: 1, status: 500, delivered: false }] });
    expect(Date.parse(d.nextAttemptAt) - clock.now().getTime()).toBeLessThanOrEqual(RETRY_BASE_MS);
    clock.advance(RETRY_BASE_MS);
    expect(await dispatch()).toMatchObject({ failed: 1 });
    clock.advance(2 * RETRY_BASE_MS);
    expect(await dispatch()).toMatchObject({ delivered: 1 });
    [d] = (await deliveries(id)).data;
    expect(d.status).toBe('delivered');
    expect(d.attempts.map((a: { status: number | null; delivered: boolean }) => [a.status, a.delivered])).toEqual([
      [500, false],
      [null, false],
      [200, true],
    ]);
    expect(d.attempts[1].error).toMatch(/^network: /);
    const sent = rx.at('/flaky');
    expect(sent).toHaveLength(3);
    expect(new Set(sent.map((r) => r.headers['webhook-id'])).size).toBe(1);
    expect(new Set(sent.map((r) => r.body)).size).toBe(1);
    expect(sent.every((r) => r.signed)).toBe(true);
  });

  it('abandons a delivery still failing 24 hours after its first attempt', async () => {
    const id = await webhook('down', ['items.create'], ['down']);
    rx.answer('/down', ...Array.from({ length: 200 }, () => 503));
    await item('down', 'd1');
    const first = clock.now().getTime();
    await dispatch();
    for (let i = 0; i < 60 && (await deliveries(id)).data[0].status === 'pending'; i++) {
      clock.advance(RETRY_CAP_MS);
      await dispatch();
    }
    const [d] = (await deliveries(id)).data;
    expect(d).toMatchObject({ status: 'abandoned', reason: 'expired', nextAttemptAt: null });
    const last = d.attempts.at(-1);
    expect(Date.parse(last.at) - first).toBeGreaterThanOrEqual(DELIVERY_WINDOW_MS);
    expect(d.attempts.every((a: { status: number }) => a.status === 503)).toBe(true);
    const sent = rx.at('/down').length;
    expect(sent).toBe(d.attempts.length);
    clock.advance(RETRY_CAP_MS);
    await dispatch();
    expect(rx.at('/down')).toHaveLength(sent);
  });

  it('sends nothing for a webhook disabled or deleted after the event, and abandons its deliveries', async () => {
    const disabled = await webhook('disabled', ['items.create'], ['gone']);
    const deleted = await webhook('deleted', ['items.create'], ['gone']);
    await item('gone', 'g1');
    await t.deps.drainReactors(WEBHOOK_DISPATCHER);
    await call('PATCH', `/api/v1/webhooks/${disabled}`, { enabled: false });
    await call('DELETE', `/api/v1/webhooks/${deleted}`);
    expect(await sendDueDeliveries(t.deps, clock.now())).toMatchObject({ abandoned: 2, delivered: 0 });
    expect(rx.at('/disabled')).toHaveLength(0);
    expect(rx.at('/deleted')).toHaveLength(0);
    const [d] = (await deliveries(disabled)).data;
    expect(d).toMatchObject({ status: 'abandoned', reason: 'webhook_disabled', attempts: [] });
    await item('gone', 'g2');
    await dispatch();
    expect((await deliveries(disabled)).meta.total).toBe(1);
  });

  it('records one delivery when the dispatcher meets the same event again (its checkpoint set back)', async () => {
    const id = await webhook('again', ['items.create'], ['again']);
    const before = await t.deps.store.headPosition();
    await item('again', 'a1');
    await t.deps.drainReactors(WEBHOOK_DISPATCHER);
    await withSystem(t.deps.db, (trx) =>
      trx.updateTable('reactor_state').set({ checkpoint: before }).where('name', '=', WEBHOOK_DISPATCHER).execute(),
    );
    await dispatch();
    expect((await deliveries(id)).meta.total).toBe(1);
    expect(rx.at('/again')).toHaveLength(1);
  });

  it('keeps a recorded delivery across a restart and sends it afterwards', async () => {
    const id = await webhook('crash', ['items.create'], ['crash']);
    await item('crash', 'c1');
    await t.deps.drainReactors(WEBHOOK_DISPATCHER);
    await t.restart({ SVC_WEBHOOK_ALLOW_PRIVATE: 'true' });
    expect(await sendDueDeliveries(t.deps, clock.now())).toMatchObject({ delivered: 1 });
    expect(rx.at('/crash')).toHaveLength(1);
    expect((await deliveries(id)).data[0].status).toBe('delivered');
  });
});
