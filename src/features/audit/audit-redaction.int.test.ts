import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';
import { REDACTED, redactSecrets } from './redact.ts';

let t: TestApp;
let admin: string;

const SECRET = 'S3CRET-material-that-must-not-show';
const SEALED = 'pii:c2VhbGVkLXZhbHVlLW9mLWEtc3ViamVjdA==';

/** Every event type that carries secret material, with that material in place (as the log holds it). */
const CARRIERS: { type: string; data: Record<string, unknown> }[] = [
  {
    type: 'UserRegistered',
    data: { userId: 'u1', email: SEALED, passwordHash: SEALED, firstName: null, lastName: null, instanceAdmin: false },
  },
  { type: 'UserPasswordChanged', data: { userId: 'u1', passwordHash: SEALED, reason: 'change' } },
  {
    type: 'SetupStarted',
    data: {
      siteId: 'main',
      siteName: 'Main',
      adminUserId: 'u1',
      email: SEALED,
      emailHash: SECRET,
      passwordHash: SEALED,
      adminPath: '/studio-x',
    },
  },
  { type: 'TotpSetupIssued', data: { userId: 'u1', seed: SECRET } },
  { type: 'TotpEnrolled', data: { userId: 'u1', recoveryCodes: [SECRET, SECRET], step: 1 } },
  { type: 'RecoveryCodesRegenerated', data: { userId: 'u1', recoveryCodes: [SECRET] } },
  {
    type: 'ApiKeyCreated',
    data: {
      keyId: 'k1',
      siteId: 'main',
      name: 'sample',
      role: 'viewer',
      publishable: false,
      allowedOrigins: null,
      expiresAt: null,
      prefix: 'svc_ab',
      secretHash: SECRET,
      createdBy: 'u1',
    },
  },
  {
    type: 'WebhookCreated',
    data: {
      webhookId: 'w1',
      name: 'w1',
      url: 'https://hooks.example.com',
      events: ['items.create'],
      collections: null,
      enabled: true,
      secret: SECRET,
      signing: { signingSecret: SECRET },
      by: 'u1',
    },
  },
  { type: 'IssuerRegistered', data: { id: 'i1', clientSecret: SECRET, config: { nested: { accessToken: SECRET } } } },
];

const append = async (type: string, data: Record<string, unknown>, i: number) =>
  t.deps.store.append(
    `main/audit-sample/${i}`,
    [
      {
        type,
        data: { ...data, at: '2026-03-01T00:00:00.000Z' },
        metadata: {
          siteId: 'main',
          actor: { type: 'system', id: 'test' },
          correlationId: 'audit-redaction',
          causationId: null,
          requestId: null,
          occurredAt: '2026-03-01T00:00:00.000Z',
        },
      },
    ],
    { expectedVersion: 'no_stream' },
  );

beforeAll(async () => {
  t = await createTestApp();
  admin = await t.setup();
});
afterAll(() => t.close());

describe('GET /api/v1/audit', () => {
  it('shows an API key’s creation without its secret hash', async () => {
    const created = await t.call({
      method: 'POST',
      url: '/api/v1/api-keys',
      payload: { name: 'ci', roleKey: 'editor' },
      as: admin,
      site: 'main',
    });
    expect(created.statusCode, created.body).toBe(201);
    const res = await t.call({ method: 'GET', url: '/api/v1/audit?type=ApiKeyCreated', as: admin, site: 'main' });
    const [event] = res.json().data;
    expect(event.data).toMatchObject({ secretHash: REDACTED, name: 'ci', role: 'editor' });
    expect(event.data.prefix).toEqual(expect.any(String));
  });

  it.each(CARRIERS.map((c, i) => [c.type, c, i] as const))(
    'redacts every secret of %s, at any depth, and keeps the rest',
    async (type, carrier, i) => {
      await append(type, carrier.data, i);
      const res = await t.call({ method: 'GET', url: `/api/v1/audit?type=${type}`, as: admin, site: 'main' });
      expect(res.statusCode).toBe(200);
      expect(res.body).not.toContain(SECRET);
      expect(res.body).not.toContain(SEALED);
      expect(res.json().data[0].data).toMatchObject({ at: '2026-03-01T00:00:00.000Z' });
    },
  );
});

describe('redactSecrets', () => {
  it('keeps counters, ids and times that only mention a secret by name', () => {
    const out = redactSecrets({ tokenVersion: 3, keyId: 'k', passwordVersion: 2, jti: 'j', secretHash: 'x' });
    expect(out).toEqual({ tokenVersion: 3, keyId: 'k', passwordVersion: 2, jti: 'j', secretHash: REDACTED });
  });

  it('builds its copy without prototypes, so event keys never reach one', () => {
    const out = redactSecrets(JSON.parse('{"__proto__": {"polluted": true}}')) as Record<string, unknown>;
    expect(Object.getPrototypeOf(out)).toBeNull();
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
