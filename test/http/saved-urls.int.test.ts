import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../setup/app.ts';
import { PRIVATE_URLS } from '../support/private-urls.ts';

/**
 * Every URL a caller saves that the service calls later (outbound webhooks, a flow's request operation, a browser's
 * push endpoint) is refused at save when it names a private, loopback or link-local address in any spelling, by the
 * outbound helper's rules, unless the area's private-address setting is on.
 */
let t: TestApp;
let admin: string;

beforeAll(async () => {
  t = await createTestApp();
  admin = await t.setup();
});
afterAll(() => t.close());

const graph = (url: string) => ({ nodes: [{ id: 'call', operation: 'request', options: { url } }], edges: [] });
const call = (method: 'POST' | 'PATCH', url: string, payload: object) =>
  t.call({ method, url, as: admin, site: 'main', payload });
const expectRefused = (res: { statusCode: number; body: string }, path: string[]) => {
  expect([400, 422], res.body).toContain(res.statusCode);
  const e = JSON.parse(res.body).errors[0];
  expect(e, res.body).toMatchObject({ code: 'VALIDATION_FAILED', path });
  expect(JSON.stringify(e.extensions)).toContain('private_address');
};

describe('POST and PATCH /api/v1/webhooks', () => {
  it.each(PRIVATE_URLS)('refuses %s at save with a path', async (url) => {
    expectRefused(await call('POST', '/api/v1/webhooks', { name: 'private', url, events: ['items.create'] }), ['url']);
    const made = await call('POST', '/api/v1/webhooks', {
      name: `public-${Math.random()}`,
      url: 'https://93.184.215.14/hook',
      events: ['items.create'],
    });
    expect(made.statusCode, made.body).toBe(201);
    expectRefused(await call('PATCH', `/api/v1/webhooks/${made.json().data.id}`, { url }), ['url']);
  });
});

describe('POST /api/v1/config/import', () => {
  it("refuses a manifest's webhook on a private address and changes nothing", async () => {
    const manifest = {
      version: 'svc.config@v1',
      webhooks: [
        { name: 'meta', url: 'http://0x7f000001/x', events: ['items.create'], collections: null, enabled: true },
      ],
    };
    const res = await call('POST', '/api/v1/config/import?mode=merge', manifest);
    expect(res.statusCode, res.body).toBeGreaterThanOrEqual(400);
    expect(res.statusCode, res.body).toBeLessThan(500);
    expect(res.body).toContain('private_address');
    const list = await t.call({ method: 'GET', url: '/api/v1/webhooks', as: admin, site: 'main' });
    expect(list.json().data.map((w: { name: string }) => w.name)).not.toContain('meta');
  });
});

describe('POST and PATCH /api/v1/flows', () => {
  it.each(PRIVATE_URLS)("refuses a request operation's target %s at save", async (url) => {
    const created = await call('POST', '/api/v1/flows', {
      name: `f-${Math.random()}`,
      trigger: 'manual',
      graph: graph(url),
    });
    expectRefused(created, ['graph', 'nodes', '0', 'options', 'url']);
    const fine = await call('POST', '/api/v1/flows', {
      name: `ok-${Math.random()}`,
      trigger: 'manual',
      graph: graph('https://93.184.215.14/{{ $trigger.path }}'),
    });
    expect(fine.statusCode, fine.body).toBe(201);
    expectRefused(await call('PATCH', `/api/v1/flows/${fine.json().data.id}`, { graph: graph(url) }), [
      'graph',
      'nodes',
      '0',
      'options',
      'url',
    ]);
  });

  it('checks a templated target at send only (its host is not known at save)', async () => {
    const res = await call('POST', '/api/v1/flows', {
      name: 'templated',
      trigger: 'manual',
      graph: graph('{{ $trigger.url }}'),
    });
    expect(res.statusCode, res.body).toBe(201);
  });
});

describe('with the private-address settings on', () => {
  it('saves a webhook and a flow request on a loopback address', async () => {
    const open = await createTestApp({ env: { SVC_WEBHOOK_ALLOW_PRIVATE: 'true', SVC_FLOW_ALLOW_PRIVATE: 'true' } });
    try {
      const token = await open.setup();
      const hook = await open.call({
        method: 'POST',
        url: '/api/v1/webhooks',
        as: token,
        site: 'main',
        payload: { name: 'local', url: 'http://127.1:8080/hook', events: ['items.create'] },
      });
      expect(hook.statusCode, hook.body).toBe(201);
      const flow = await open.call({
        method: 'POST',
        url: '/api/v1/flows',
        as: token,
        site: 'main',
        payload: { name: 'local', trigger: 'manual', graph: graph('http://[::ffff:127.0.0.1]/x') },
      });
      expect(flow.statusCode, flow.body).toBe(201);
    } finally {
      await open.close();
    }
  }, 60_000);
});
