import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { ManualClock } from '../../src/kernel/clock.ts';
import { codeAt } from '../../src/features/auth/tfa/totp.ts';
import { ADMIN, createTestApp, type TestApp } from '../setup/app.ts';
import { createUser } from '../setup/users.ts';

/**
 * Answers that carry a secret chosen for the request are never compressed, however large (BREACH). Each route is
 * called on a second app over the same service that compresses from one byte on, so any answer of a route without
 * the `secretAnswer` flag would come back br; the first test shows one does.
 */
let t: TestApp;
let eager: FastifyInstance;
let admin: string;
const clock = new ManualClock(new Date());
const KEY = Buffer.alloc(32, 5).toString('base64');
const PASSWORD = 'Secret-answers-2026!';
const BOTH = { 'accept-encoding': 'br, gzip' };

type Call = { method: 'GET' | 'POST' | 'PUT'; url: string; payload?: object; as?: string; site?: string };
const send = (app: FastifyInstance, c: Call) =>
  app.inject({
    method: c.method,
    url: c.url,
    ...(c.payload ? { payload: c.payload } : {}),
    headers: {
      ...BOTH,
      ...(c.as ? { authorization: `Bearer ${c.as}` } : {}),
      ...(c.site ? { 'x-svc-site': c.site } : {}),
    },
  });
const viaEager = (c: Call) => send(eager, c);
const ok = async (c: Call) => {
  const res = await t.call({ ...c, as: c.as ?? admin, site: c.site ?? 'main' });
  expect(res.statusCode, res.body).toBeLessThan(300);
  return res.json().data;
};
const tick = () => clock.advance(30_000);

/** A user with TOTP confirmed through the eager app: its confirm answer and a session. */
async function enrolled(email: string) {
  const token = await createUser(t, email, PASSWORD, { main: 'editor' });
  const setup = await viaEager({
    method: 'POST',
    url: '/api/v1/me/tfa/setup',
    payload: { password: PASSWORD },
    as: token,
  });
  tick();
  const secret = JSON.parse(setup.body).data.secret as string;
  const code = codeAt(secret, clock.now().getTime());
  const confirm = await viaEager({ method: 'POST', url: '/api/v1/me/tfa/confirm', payload: { code }, as: token });
  tick();
  return { token, secret, setup, confirm };
}

/** Every route that answers a secret, and one successful answer of it (the secret field it carries). */
const SECRET_ANSWERS = new Map<string, () => Promise<[LightMyRequestResponse, string]>>([
  ['POST /api/v1/setup/complete', async () => [setupAnswer, 'refreshToken']],
  [
    'POST /api/v1/auth/login',
    async () => [await viaEager({ method: 'POST', url: '/api/v1/auth/login', payload: ADMIN }), 'refreshToken'],
  ],
  [
    'POST /api/v1/auth/refresh',
    async () => {
      const { refreshToken } = await ok({ method: 'POST', url: '/api/v1/auth/login', payload: ADMIN });
      return [
        await viaEager({ method: 'POST', url: '/api/v1/auth/refresh', payload: { refreshToken } }),
        'refreshToken',
      ];
    },
  ],
  [
    'POST /api/v1/me/change-password',
    async () => {
      const as = await createUser(t, 'change@example.com', PASSWORD, { main: 'viewer' });
      const payload = { currentPassword: PASSWORD, newPassword: `${PASSWORD}-new` };
      return [await viaEager({ method: 'POST', url: '/api/v1/me/change-password', payload, as }), 'refreshToken'];
    },
  ],
  ['POST /api/v1/me/tfa/setup', async () => [(await enrolled('setup@example.com')).setup, 'otpauthUrl']],
  ['POST /api/v1/me/tfa/confirm', async () => [(await enrolled('confirm@example.com')).confirm, 'recoveryCodes']],
  [
    'POST /api/v1/me/tfa/recovery-codes',
    async () => {
      const { token, secret } = await enrolled('codes@example.com');
      const payload = { password: PASSWORD, code: codeAt(secret, clock.now().getTime()) };
      const res = await viaEager({ method: 'POST', url: '/api/v1/me/tfa/recovery-codes', payload, as: token });
      return [res, 'recoveryCodes'];
    },
  ],
  [
    'POST /api/v1/auth/verify-totp',
    async () => {
      const { secret } = await enrolled('verify@example.com');
      const login = await ok({
        method: 'POST',
        url: '/api/v1/auth/login',
        payload: { email: 'verify@example.com', password: PASSWORD },
      });
      const payload = { challengeToken: login.challengeToken, code: codeAt(secret, clock.now().getTime()) };
      return [await viaEager({ method: 'POST', url: '/api/v1/auth/verify-totp', payload }), 'refreshToken'];
    },
  ],
  [
    'POST /api/v1/auth/accept-invite',
    async () => {
      await ok({
        method: 'POST',
        url: '/api/v1/users/invite',
        payload: { email: 'guest@example.com', roleKey: 'editor' },
      });
      await t.deps.afterAnswer.settled();
      const mails = await ok({ method: 'GET', url: '/api/v1/admin/outbox?to=guest%40example.com' });
      const token = /token=(\S+)/.exec(mails[0].body)![1]!;
      const payload = { token, password: PASSWORD };
      return [await viaEager({ method: 'POST', url: '/api/v1/auth/accept-invite', payload }), 'refreshToken'];
    },
  ],
  [
    'POST /api/v1/users/{id}/impersonate',
    async () => {
      const member = await createUser(t, 'member@example.com', PASSWORD, { main: 'viewer' });
      const { id } = await ok({ method: 'GET', url: '/api/v1/auth/me', as: member });
      const url = `/api/v1/users/${id}/impersonate`;
      return [await viaEager({ method: 'POST', url, as: admin, site: 'main' }), 'token'];
    },
  ],
  [
    'POST /api/v1/api-keys',
    async () => {
      const payload = { name: 'reader', roleKey: 'viewer' };
      return [await viaEager({ method: 'POST', url: '/api/v1/api-keys', payload, as: admin, site: 'main' }), 'key'];
    },
  ],
  [
    'POST /api/v1/webhooks',
    async () => {
      const payload = { name: 'orders', url: 'https://hooks.example.com/in', events: ['items.create'] };
      return [await viaEager({ method: 'POST', url: '/api/v1/webhooks', payload, as: admin, site: 'main' }), 'secret'];
    },
  ],
  [
    'POST /api/v1/flows/{id}/token',
    async () => {
      const flow = await ok({ method: 'POST', url: '/api/v1/flows', payload: { name: 'hook', trigger: 'webhook' } });
      const url = `/api/v1/flows/${flow.id}/token`;
      return [await viaEager({ method: 'POST', url, as: admin, site: 'main' }), 'token'];
    },
  ],
  [
    'POST /api/v1/integrations/git',
    async () => {
      const payload = { provider: 'github', repository: 'acme/site', authMethod: 'pat', token: 'ghp_test' };
      const res = await viaEager({ method: 'POST', url: '/api/v1/integrations/git', payload, as: admin, site: 'main' });
      return [res, 'webhookSecret'];
    },
  ],
  [
    'POST /api/v1/config/import',
    async () => {
      const hook = { name: 'imported', url: 'https://hooks.example.com/in', events: ['items.create'], enabled: true };
      const payload = { version: 'svc.config@v1', webhooks: [{ ...hook, collections: null }] };
      return [
        await viaEager({ method: 'POST', url: '/api/v1/config/import', payload, as: admin, site: 'main' }),
        'secrets',
      ];
    },
  ],
]);

/** The sync answers the secrets of webhooks a repository's manifest creates; its provider is not at hand here. */
const ROUTE_ONLY = new Map([
  ['POST /api/v1/integrations/git/{id}/gitops/sync', '/api/v1/integrations/git/nope/gitops/sync'],
]);

let setupAnswer: LightMyRequestResponse;
beforeAll(async () => {
  t = await createTestApp({ env: { ENCRYPTION_KEY: KEY, ACCESS_TOKEN_TTL_S: '3600' }, clock });
  eager = await buildApp(t.deps, { logger: false, compressionThreshold: 1 });
  setupAnswer = await viaEager({
    method: 'POST',
    url: '/api/v1/setup/complete',
    payload: { siteId: 'main', siteName: 'Main', ...ADMIN },
  });
  admin = JSON.parse(setupAnswer.body).data.token;
});
afterAll(async () => {
  await eager.close();
  await t.close();
});

describe('the eager app', () => {
  it('compresses an ordinary answer of a few bytes', async () => {
    const res = await viaEager({ method: 'GET', url: '/api/v1/auth/me', as: admin });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-encoding']).toBe('br');
  });
});

describe('answers that carry a secret', () => {
  it.each([...SECRET_ANSWERS.keys()])('%s answers uncompressed to br, gzip', async (route) => {
    const [res, field] = await SECRET_ANSWERS.get(route)!();
    expect(res.statusCode, res.body).toBeLessThan(300);
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.headers.vary ?? '').not.toMatch(/accept-encoding/i);
    expect(JSON.stringify(res.json().data)).toContain(`"${field}"`);
  });

  it.each([...ROUTE_ONLY])('%s answers uncompressed (an error of the route shows it)', async (_route, url) => {
    const res = await viaEager({ method: 'POST', url, payload: {}, as: admin, site: 'main' });
    expect(res.statusCode).toBeGreaterThanOrEqual(400);
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.json().errors).toHaveLength(1);
  });

  it('a publishable key with 50 origins of the caller (over 2 KB) answers uncompressed on the real app', async () => {
    const allowedOrigins = Array.from({ length: 50 }, (_, i) => `https://site-${i}-${'a'.repeat(20)}.example.com`);
    const payload = { name: 'x'.repeat(200), roleKey: 'viewer', publishable: true, allowedOrigins };
    const res = await send(t.app, { method: 'POST', url: '/api/v1/api-keys', payload, as: admin, site: 'main' });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.rawPayload.length).toBeGreaterThan(2048);
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.json().data.key).toEqual(expect.any(String));
  });

  it('are all on the list: every operation whose success names a token or secret field', async () => {
    const doc = (await t.call({ method: 'GET', url: '/api/v1/openapi.json' })).json();
    const found = [...secretOperations(doc)].sort();
    // A diff is a dry run of a schema, and one collection's schema creates no webhook: their plans name no secret.
    const planned = ['POST /api/v1/collections/diff', 'PUT /api/v1/collections/{name}/schema'];
    const listed = [...SECRET_ANSWERS.keys(), ...ROUTE_ONLY.keys()].filter((r) => r !== 'POST /api/v1/api-keys');
    expect(found).toEqual([...listed, ...planned].sort());
  });
});

/** Field names that hold a secret handed out in an answer (an API key's `key` is one too, but so is many a name). */
const SECRET_FIELD = /^(?:token|refreshToken|challengeToken|secret|secrets|webhookSecret|recoveryCodes|otpauthUrl)$/;

type Schema = { $ref?: string; properties?: Record<string, Schema>; items?: Schema } & Record<string, unknown>;
function secretOperations(doc: {
  paths: Record<
    string,
    Record<string, { responses?: Record<string, { content?: Record<string, { schema: Schema }> }> }>
  >;
  components: { schemas: Record<string, Schema> };
}): Set<string> {
  const names = (s: Schema | undefined, seen: Set<string>): boolean => {
    if (!s || typeof s !== 'object') return false;
    if (s.$ref) {
      const name = s.$ref.split('/').pop()!;
      if (seen.has(name)) return false;
      return names(doc.components.schemas[name], new Set([...seen, name]));
    }
    const props = Object.entries(s.properties ?? {});
    if (props.some(([k, v]) => SECRET_FIELD.test(k) || names(v, seen))) return true;
    const nested = [s.items, s.additionalProperties, ...((s.anyOf ?? s.oneOf ?? s.allOf ?? []) as Schema[])];
    return nested.some((n) => names(n as Schema | undefined, seen));
  };
  const out = new Set<string>();
  for (const [path, ops] of Object.entries(doc.paths))
    for (const [method, op] of Object.entries(ops))
      for (const [status, r] of Object.entries(op.responses ?? {}))
        if (status.startsWith('2') && Object.values(r.content ?? {}).some((c) => names(c.schema, new Set())))
          out.add(`${method.toUpperCase()} ${path}`);
  return out;
}
