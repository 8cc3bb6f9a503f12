import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';
import { sendDueDeliveries, WEBHOOK_DISPATCHER } from './index.ts';
import { startReceiver, type Receiver } from './webhook-receiver.fixture.ts';

/**
 * Review probes of outbound webhooks, without SVC_WEBHOOK_ALLOW_PRIVATE: loopback in every spelling, secrets in
 * every answer, other sites' items, events older than the webhook, and what a collection filter lets through.
 */
let t: TestApp;
let admin: string;
let rx: Receiver;

beforeAll(async () => {
  rx = await startReceiver();
  t = await createTestApp();
  admin = await t.setup();
  await t.call({ method: 'POST', url: '/api/v1/sites', as: admin, payload: { id: 'wh-b', name: 'wh-b' } });
  for (const site of ['main', 'wh-b'])
    for (const name of ['posts', 'notes']) {
      await call('POST', '/api/v1/collections', { name }, site);
      await call('POST', `/api/v1/fields/${name}`, { field: 'title', type: 'string' }, site);
    }
});
afterAll(async () => {
  await t.close();
  await rx.close();
});

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';
const call = async (method: Method, url: string, payload?: object, site = 'main') => {
  const res = await t.call({ method, url, as: admin, site, ...(payload ? { payload } : {}) });
  expect(res.statusCode, `${method} ${url}: ${res.body}`).toBeLessThan(300);
  return res.statusCode === 204 ? null : res.json();
};
const deliveries = async (id: string, site = 'main') =>
  (await call('GET', `/api/v1/webhooks/${id}/deliveries`, undefined, site)).data as {
    status: string;
    payload: { data: Record<string, unknown> };
    attempts: { error: string | null }[];
  }[];

describe('webhooks review: private addresses in other spellings', () => {
  it('sends nothing to loopback however the URL spells it', async () => {
    const port = new URL(rx.url('/')).port;
    const hosts = [
      '2130706433',
      '0177.0.0.1',
      '127.1',
      '0x7f.0.0.1',
      '[::ffff:127.0.0.1]',
      '[::ffff:7f00:1]',
      '[0:0:0:0:0:ffff:7f00:1]',
      '0.0.0.0',
      '[::]',
      '[::1]',
      'localhost.',
      '[::127.0.0.1]',
    ];
    const ids: string[] = [];
    for (const [i, host] of hosts.entries()) {
      const res = await t.call({
        method: 'POST',
        url: '/api/v1/webhooks',
        as: admin,
        site: 'main',
        payload: {
          name: `ssrf${i}`,
          url: `http://${host}:${port}/ssrf${i}`,
          events: ['items.create'],
          collections: ['notes'],
        },
      });
      // Refused at creation, or accepted and refused at every send.
      expect(res.statusCode, `${host}: ${res.body}`).toBeLessThan(500);
      if (res.statusCode === 201) ids.push(res.json().data.id);
    }
    await call('POST', '/api/v1/items/notes', { id: 'n-ssrf', title: 'x' });
    await t.deps.drainReactors(WEBHOOK_DISPATCHER);
    await sendDueDeliveries(t.deps, t.deps.clock.now());
    expect(rx.received.map((r) => r.path)).toEqual([]);
    for (const id of ids) {
      const [d] = await deliveries(id);
      expect(d?.attempts[0]?.error ?? '').toMatch(/^(private_address|unresolved|network)/);
    }
    for (const id of ids) await call('DELETE', `/api/v1/webhooks/${id}`);
  });
});

describe('webhooks review: secrets', () => {
  it('never shows a secret in the config export, a config import answer, the delivery log or the schema log', async () => {
    const secret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
    const { data } = await call('POST', '/api/v1/webhooks', {
      name: 'leak-probe',
      url: 'https://in.example.com/hook',
      events: ['items.create'],
      collections: ['posts'],
      secret,
    });
    await call('POST', '/api/v1/items/posts', { id: 'p-leak', title: 'x' });
    await t.deps.drainReactors(WEBHOOK_DISPATCHER);
    const raw = secret.slice(6);
    const exported = await t.call({ method: 'GET', url: '/api/v1/config/export', as: admin, site: 'main' });
    expect(exported.body).not.toContain(raw);
    const imported = await t.call({
      method: 'POST',
      url: '/api/v1/config/import?dryRun=true',
      as: admin,
      site: 'main',
      payload: exported.json().data,
    });
    expect(imported.body).not.toContain(raw);
    const log = await t.call({ method: 'GET', url: `/api/v1/webhooks/${data.id}/deliveries`, as: admin, site: 'main' });
    expect(log.body).not.toContain(raw);
    await call('DELETE', `/api/v1/webhooks/${data.id}`);
  });
});

describe('webhooks review: what is delivered', () => {
  it("records no delivery for another site's items", async () => {
    const { data } = await call('POST', '/api/v1/webhooks', {
      name: 'all-main',
      url: 'https://in.example.com/all',
      events: ['items.create'],
    });
    await call('POST', '/api/v1/items/posts', { id: 'b-only', title: 'b' }, 'wh-b');
    await t.deps.drainReactors(WEBHOOK_DISPATCHER);
    const got = await deliveries(data.id);
    expect(got.filter((d) => d.payload.data.id === 'b-only')).toEqual([]);
    await call('DELETE', `/api/v1/webhooks/${data.id}`);
  });

  it('records no delivery of an event that happened before the webhook existed', async () => {
    await call('POST', '/api/v1/items/posts', { id: 'before-hook', title: 'old' });
    // The dispatcher lags (asynchronous reactors, a restart, a backlog): the webhook is created meanwhile.
    const { data } = await call('POST', '/api/v1/webhooks', {
      name: 'late',
      url: 'https://in.example.com/late',
      events: ['items.create'],
      collections: ['posts'],
    });
    await t.deps.drainReactors(WEBHOOK_DISPATCHER);
    const got = await deliveries(data.id);
    expect(got.map((d) => d.payload.data.id)).not.toContain('before-hook');
    await call('DELETE', `/api/v1/webhooks/${data.id}`);
  });

  it("sends a collection-filtered webhook no item of another collection in a release's payload", async () => {
    const { data } = await call('POST', '/api/v1/webhooks', {
      name: 'posts-releases',
      url: 'https://in.example.com/rel',
      events: ['release.published'],
      collections: ['posts'],
    });
    await call('POST', '/api/v1/items/posts', { id: 'rp1', title: 'p', status: 'draft' });
    await call('POST', '/api/v1/items/notes', { id: 'rn1', title: 'n', status: 'draft' });
    const release = await call('POST', '/api/v1/releases', {
      name: 'Mixed',
      addItems: [
        { collection: 'posts', itemId: 'rp1', targetStatus: 'published' },
        { collection: 'notes', itemId: 'rn1', targetStatus: 'published' },
      ],
    });
    await call('POST', `/api/v1/releases/${release.data.id}/publish`);
    await t.deps.drainReactors(WEBHOOK_DISPATCHER);
    const [d] = await deliveries(data.id);
    const items = (d!.payload.data.items as { collection: string }[]).map((i) => i.collection);
    expect(items).toEqual(['posts']);
  });
});
