import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';
import { handleCommands } from '../../kernel/es/handle-command.ts';
import { sendDueDeliveries, WEBHOOK_DISPATCHER, webhookConfigCommand } from './index.ts';
import { startReceiver, type Receiver } from './webhook-receiver.fixture.ts';

/** Without SVC_WEBHOOK_ALLOW_PRIVATE, deliveries never reach private, loopback or link-local addresses. */
let t: TestApp;
let admin: string;
let rx: Receiver;

beforeAll(async () => {
  rx = await startReceiver();
  t = await createTestApp();
  admin = await t.setup();
  await call('POST', '/api/v1/collections', { name: 'posts' });
  await call('POST', '/api/v1/fields/posts', { field: 'title', type: 'string' });
});
afterAll(async () => {
  await t.close();
  await rx.close();
});

const call = async (method: 'GET' | 'POST', url: string, payload?: object) => {
  const res = await t.call({ method, url, as: admin, site: 'main', ...(payload ? { payload } : {}) });
  expect(res.statusCode, res.body).toBeLessThan(300);
  return res.json();
};

describe('webhook deliveries to private addresses', () => {
  it('records each refused send as a failed attempt with its reason, and sends nothing', async () => {
    const port = new URL(rx.url('/')).port;
    const targets = [rx.url('/loopback'), `http://localhost:${port}/named`, 'http://169.254.169.254/latest/meta-data/'];
    // Refused at save now; webhooks saved while SVC_WEBHOOK_ALLOW_PRIVATE was on (or names re-pointed since) are
    // still refused at every send.
    for (const url of targets) {
      const res = await t.call({
        method: 'POST',
        url: '/api/v1/webhooks',
        as: admin,
        site: 'main',
        payload: { name: 'x', url, events: ['items.create'] },
      });
      expect(res.statusCode, res.body).toBe(400);
    }
    const configs = targets.map((url, i) => ({
      name: `w${i}`,
      url,
      events: ['items.create'],
      collections: null,
      enabled: true,
    }));
    const { db, config, store, clock } = t.deps;
    const saved = await webhookConfigCommand(
      db,
      config.keyring,
      'main',
      { create: configs, update: [], delete: [] },
      clock.now().toISOString(),
      'test',
      true,
    );
    const metadata = {
      siteId: 'main',
      actor: { type: 'system' as const, id: 'test' },
      correlationId: 'test',
      causationId: null,
      requestId: null,
      occurredAt: clock.now().toISOString(),
    };
    await handleCommands(store, [saved!.command], { metadata });
    const listed = (await call('GET', '/api/v1/webhooks')).data as { id: string; name: string }[];
    const ids = configs.map((c) => listed.find((w) => w.name === c.name)!.id);
    await call('POST', '/api/v1/items/posts', { id: 'p1', title: 'p1' });
    await t.deps.drainReactors(WEBHOOK_DISPATCHER);
    expect(await sendDueDeliveries(t.deps, t.deps.clock.now())).toMatchObject({ failed: 3, delivered: 0 });
    expect(rx.received).toHaveLength(0);
    for (const id of ids) {
      const [d] = (await call('GET', `/api/v1/webhooks/${id}/deliveries`)).data;
      expect(d.status).toBe('pending');
      expect(d.attempts).toEqual([expect.objectContaining({ attempt: 1, status: null, delivered: false })]);
      expect(d.attempts[0].error).toMatch(/^private_address: /);
    }
  });
});
