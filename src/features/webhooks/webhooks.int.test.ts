import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collect } from '../../kernel/es/event-store.ts';
import { handleCommands } from '../../kernel/es/handle-command.ts';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';
import { createUser } from '../../../test/setup/users.ts';
import { webhookConfigCommand, webhookConfigs, WebhookConfigSchema } from './index.ts';
import { webhooksStream } from '../../contracts/webhooks/webhook.events.ts';

let t: TestApp;
let admin: string;

beforeAll(async () => {
  t = await createTestApp();
  admin = await t.setup();
  const res = await t.call({
    method: 'POST',
    url: '/api/v1/sites',
    as: admin,
    payload: { id: 'other', name: 'Other' },
  });
  expect(res.statusCode, res.body).toBe(201);
});
afterAll(() => t.close());

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';
const call = (method: Method, url: string, payload?: unknown, opts: { as?: string; site?: string } = {}) =>
  t.call({
    method,
    url,
    as: 'as' in opts ? opts.as : admin,
    site: opts.site ?? 'main',
    ...(payload === undefined ? {} : { payload: payload as object }),
  });
let n = 0;
const hook = (body: object = {}) => ({
  name: `hook-${++n}`,
  url: 'https://hooks.example.com/in',
  events: ['items.create'],
  ...body,
});
const create = async (body: object = {}, site = 'main') => {
  const res = await call('POST', '/api/v1/webhooks', hook(body), { site });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data as { id: string; name: string; secret?: string };
};
const firstError = (body: string) => JSON.parse(body).errors[0] as { code: string; path: string[] };

describe('POST /api/v1/webhooks', () => {
  it('creates a webhook with defaults and returns a generated Standard Webhooks secret once', async () => {
    const res = await call('POST', '/api/v1/webhooks', hook({ name: 'orders' }));
    expect(res.statusCode, res.body).toBe(201);
    const data = res.json().data;
    expect(data).toMatchObject({
      name: 'orders',
      url: 'https://hooks.example.com/in',
      events: ['items.create'],
      collections: null,
      enabled: true,
    });
    expect(data.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(Buffer.from(data.secret.slice(6), 'base64').length).toBeGreaterThanOrEqual(24);
    const again = await call('GET', `/api/v1/webhooks/${data.id}`);
    expect(again.statusCode).toBe(200);
    expect(again.json().data).toEqual({ ...data, secret: undefined, createdAt: data.createdAt });
    expect(again.body).not.toContain('secret');
  });

  it('does not echo a secret the request gave', async () => {
    const secret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
    const res = await call('POST', '/api/v1/webhooks', hook({ secret }));
    expect(res.statusCode, res.body).toBe(201);
    expect(res.body).not.toContain(secret);
    expect(res.json().data.secret).toBeUndefined();
  });

  it('refuses a second webhook of the same name with 409 CONFLICT', async () => {
    const first = await create();
    const res = await call('POST', '/api/v1/webhooks', hook({ name: first.name }));
    expect(res.statusCode).toBe(409);
    expect(firstError(res.body)).toMatchObject({ code: 'CONFLICT', path: ['name'] });
  });

  it.each([
    ['ftp://hooks.example.com/', 'bad_url'],
    ['javascript:alert(1)', 'bad_url'],
    ['https://user:pw@hooks.example.com/', 'bad_url'],
    ['not a url', 'bad_url'],
  ])('refuses the URL %s with 400 VALIDATION_FAILED at url', async (url, reason) => {
    const res = await call('POST', '/api/v1/webhooks', hook({ url }));
    expect(res.statusCode, res.body).toBe(400);
    expect(JSON.parse(res.body).errors[0]).toMatchObject({
      code: 'VALIDATION_FAILED',
      path: ['url'],
      extensions: { reason },
    });
  });

  it.each([
    ['an unknown key', { extra: 1 }, ['body', 'extra']],
    ['an unknown event', { events: ['items.explode'] }, ['body', 'events', '0']],
    ['10 000 events', { events: Array.from({ length: 10_000 }, () => 'items.create') }, ['body', 'events']],
    ['a repeated event', { events: ['items.create', 'items.create'] }, ['body', 'events']],
    ['a huge name', { name: 'x'.repeat(100_000) }, ['body', 'name']],
    ['an empty name', { name: '  ' }, ['body', 'name']],
    ['a bad collection name', { collections: ['../x'] }, ['body', 'collections', '0']],
    ['no events', { events: [] }, ['body', 'events']],
    ['a short secret', { secret: 'whsec_c2hvcnQ=' }, ['body', 'secret']],
    ['a URL that is not a string', { url: 42 }, ['body', 'url']],
  ])('refuses %s with 400 and a precise path', async (_, body, path) => {
    const res = await call('POST', '/api/v1/webhooks', hook(body));
    expect(res.statusCode, res.body).toBe(400);
    expect(firstError(res.body)).toMatchObject({ code: 'VALIDATION_FAILED', path });
  });

  it('refuses __proto__ and constructor keys without touching any prototype', async () => {
    for (const raw of [
      `{"name":"p","url":"https://a.example.com/","events":["items.create"],"__proto__":{"polluted":true}}`,
      `{"name":"p","url":"https://a.example.com/","events":["items.create"],"constructor":{"prototype":{"polluted":true}}}`,
    ]) {
      const res = await t.call({
        method: 'POST',
        url: '/api/v1/webhooks',
        as: admin,
        site: 'main',
        headers: { 'content-type': 'application/json' },
        payload: raw,
      });
      expect(res.statusCode, res.body).toBe(400);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    }
  });
});

describe('PATCH and DELETE /api/v1/webhooks/:id', () => {
  it('changes the named settings only, and keeps names unique', async () => {
    const a = await create({ collections: ['posts'] });
    const b = await create();
    const res = await call('PATCH', `/api/v1/webhooks/${a.id}`, { enabled: false, events: ['items.delete'] });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({
      name: a.name,
      enabled: false,
      events: ['items.delete'],
      collections: ['posts'],
    });
    const clash = await call('PATCH', `/api/v1/webhooks/${a.id}`, { name: b.name });
    expect(clash.statusCode).toBe(409);
    const bad = await call('PATCH', `/api/v1/webhooks/${a.id}`, { url: 'file:///etc/passwd' });
    expect(bad.statusCode).toBe(400);
    expect(firstError(bad.body).path).toEqual(['url']);
  });

  it('answers 404 for an unknown webhook and removes a known one', async () => {
    expect((await call('PATCH', '/api/v1/webhooks/nope', { enabled: false })).statusCode).toBe(404);
    expect((await call('DELETE', '/api/v1/webhooks/nope')).statusCode).toBe(404);
    const a = await create();
    expect((await call('DELETE', `/api/v1/webhooks/${a.id}`)).statusCode).toBe(204);
    expect((await call('GET', `/api/v1/webhooks/${a.id}`)).statusCode).toBe(404);
    expect((await call('GET', `/api/v1/webhooks/${a.id}/deliveries`)).statusCode).toBe(404);
  });
});

describe('secrets', () => {
  it('never shows a secret in a GET, a list, or the event log in plain text', async () => {
    const created = await create();
    const rotated = `whsec_${Buffer.alloc(24, 9).toString('base64')}`;
    expect((await call('PATCH', `/api/v1/webhooks/${created.id}`, { secret: rotated })).statusCode).toBe(200);
    const answers = [
      await call('GET', '/api/v1/webhooks'),
      await call('GET', `/api/v1/webhooks/${created.id}`),
      await call('PATCH', `/api/v1/webhooks/${created.id}`, { enabled: true }),
    ];
    for (const res of answers) {
      expect(res.statusCode).toBe(200);
      for (const s of [created.secret!, rotated]) expect(res.body).not.toContain(s.slice(6));
      expect(res.body).not.toContain('secret');
    }
    const log = JSON.stringify((await collect(t.deps.store.readStream(webhooksStream('main')))).map((e) => e.data));
    for (const s of [created.secret!, rotated]) expect(log).not.toContain(s.slice(6));
    expect(log).toContain('pii:');
  });
});

describe('tenancy and access', () => {
  it('keeps each site to its own webhooks', async () => {
    const mine = await create();
    const theirs = await create({}, 'other');
    const list = (await call('GET', '/api/v1/webhooks', undefined, { site: 'other' })).json().data;
    expect(list.map((w: { id: string }) => w.id)).toEqual([theirs.id]);
    for (const [method, url, body] of [
      ['GET', `/api/v1/webhooks/${mine.id}`],
      ['GET', `/api/v1/webhooks/${mine.id}/deliveries`],
      ['PATCH', `/api/v1/webhooks/${mine.id}`, { enabled: false }],
      ['DELETE', `/api/v1/webhooks/${mine.id}`],
    ] as [Method, string, object?][]) {
      expect((await call(method, url, body, { site: 'other' })).statusCode).toBe(404);
    }
    expect((await call('GET', `/api/v1/webhooks/${mine.id}`)).json().data.enabled).toBe(true);
  });

  it('answers 401 without credentials and 403 to site admins and editors', async () => {
    const anonymous = await call('GET', '/api/v1/webhooks', undefined, { as: undefined });
    expect(anonymous.statusCode).toBe(401);
    const siteAdmin = await createUser(t, 'siteadmin@example.com', 'Long-enough-pass-1!', { main: 'site_admin' });
    const editor = await createUser(t, 'editor@example.com', 'Long-enough-pass-1!', { main: 'editor' });
    for (const as of [siteAdmin, editor]) {
      expect((await call('GET', '/api/v1/webhooks', undefined, { as })).statusCode).toBe(403);
      expect((await call('POST', '/api/v1/webhooks', hook(), { as })).statusCode).toBe(403);
    }
  });
});

describe('configuration exports', () => {
  it('lists webhooks as configuration and applies creates, updates and deletes by name in one append', async () => {
    const meta = {
      siteId: 'other',
      actor: { type: 'system' as const, id: 'test' },
      correlationId: 'c',
      causationId: null,
      requestId: null,
    };
    const before = await webhookConfigs(t.deps.store, 'other');
    const asOf = new Date();
    const [first] = before;
    expect(first).toBeDefined();
    expect(Object.keys(first!).sort()).toEqual(['collections', 'enabled', 'events', 'name', 'url']);
    const now = new Date(asOf.getTime() + 1000).toISOString();
    const cmd = await webhookConfigCommand(
      t.deps.db,
      t.deps.config.keyring,
      'other',
      {
        create: [
          {
            name: 'imported',
            url: 'https://in.example.com/',
            events: ['release.published'],
            collections: null,
            enabled: true,
          },
        ],
        update: [{ ...first!, enabled: false }],
        delete: [],
      },
      now,
      'test',
    );
    expect(cmd!.secrets).toEqual([{ name: 'imported', secret: expect.stringMatching(/^whsec_/) }]);
    await handleCommands(t.deps.store, [cmd!.command], { metadata: { ...meta, occurredAt: now } });
    const after = await webhookConfigs(t.deps.store, 'other');
    expect(after.map((w) => w.name)).toEqual([...before.map((w) => w.name), 'imported'].sort());
    expect(after.find((w) => w.name === first!.name)!.enabled).toBe(false);
    expect(await webhookConfigs(t.deps.store, 'other', asOf)).toEqual(before);
    expect(
      await webhookConfigCommand(
        t.deps.db,
        t.deps.config.keyring,
        'other',
        { create: [], update: [], delete: [] },
        now,
        'test',
      ),
    ).toBeNull();
    const same = await webhookConfigCommand(
      t.deps.db,
      t.deps.config.keyring,
      'other',
      { create: [], update: after, delete: [] },
      now,
      'test',
    );
    const r = await handleCommands(t.deps.store, [same!.command], { metadata: { ...meta, occurredAt: now } });
    expect(r[0]!.events).toEqual([]);
    const unknown = await webhookConfigCommand(
      t.deps.db,
      t.deps.config.keyring,
      'other',
      { create: [], update: [], delete: ['ghost'] },
      now,
      'test',
    );
    await expect(
      handleCommands(t.deps.store, [unknown!.command], { metadata: { ...meta, occurredAt: now } }),
    ).rejects.toThrow(/ghost/);
  });

  it('validates configuration strictly', () => {
    const ok = {
      name: 'a',
      url: 'https://x.example.com/',
      events: ['items.update'],
      collections: ['posts'],
      enabled: true,
    };
    expect(WebhookConfigSchema.safeParse(ok).success).toBe(true);
    const bad = WebhookConfigSchema.safeParse({ ...ok, url: 'gopher://x/' });
    expect(bad.success || bad.error.issues[0]!.path).toEqual(['url']);
    expect(WebhookConfigSchema.safeParse({ ...ok, secret: 'x' }).success).toBe(false);
  });
});
