import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostname } from 'node:os';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';
import { apiClient } from '../../../test/setup/api.ts';

/** Site main and site other, both administered by the instance's first admin; other holds one integration. */
let t: TestApp;
let admin: string;
let otherId: string;
const { ok } = apiClient(
  () => t,
  () => admin,
);
const BASE = '/api/v1/integrations/git';
const huge = 'x'.repeat(200_000);
/** Every string field of the body 200 000 characters long (together just under the 1 MiB body limit). */
const hugeBody = { repository: huge, baseUrl: huge, authMethod: huge, token: huge, webhookSecret: huge };

beforeAll(async () => {
  t = await createTestApp({ env: { SVC_PUBLIC_URL: 'https://cms.example.com/' } });
  admin = await t.setup();
  await ok('POST', '/api/v1/sites', { id: 'other', name: 'Other' });
  const created = await t.call({
    method: 'POST',
    url: BASE,
    as: admin,
    site: 'other',
    payload: {
      provider: 'github',
      repository: 'acme/site',
      authMethod: 'pat',
      token: 'ghp_secret_token_value',
      webhookSecret: 'a-webhook-secret-of-forty-characters-long',
    },
  });
  otherId = created.json().data.id;
}, 60_000);
afterAll(() => t.close());

const readOther = async () => {
  const res = await t.call({ method: 'GET', url: `${BASE}/${otherId}`, as: admin, site: 'other' });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data;
};

describe('PATCH /api/v1/integrations/git/:id', () => {
  it("answers 400 to every string field 200 000 characters long with another site's id, and changes nothing", async () => {
    const before = await readOther();
    const res = await t.call({
      method: 'PATCH',
      url: `${BASE}/${otherId}`,
      as: admin,
      site: 'main',
      payload: hugeBody,
    });
    expect(res.statusCode, res.body.slice(0, 500)).toBe(400);
    expect(res.json().errors.map((e: { path: string[] }) => e.path.join('.'))).toEqual(
      expect.arrayContaining(['body.repository', 'body.baseUrl', 'body.token', 'body.webhookSecret']),
    );
    expect(await readOther()).toEqual(before);
  });

  it('refuses an over-long base URL by its length, before reading it as an address', async () => {
    for (const site of ['main', 'other']) {
      const res = await t.call({
        method: 'PATCH',
        url: `${BASE}/${otherId}`,
        as: admin,
        site,
        payload: { baseUrl: `https://${'a'.repeat(600)}.example.com/` },
      });
      expect(res.statusCode, res.body.slice(0, 500)).toBe(400);
      expect(res.json().errors).toEqual([expect.objectContaining({ path: ['body', 'baseUrl'] })]);
      const bad = await t.call({
        method: 'PATCH',
        url: `${BASE}/${otherId}`,
        as: admin,
        site,
        payload: { baseUrl: huge },
      });
      expect(bad.statusCode, bad.body.slice(0, 500)).toBe(400);
    }
  });

  it("answers 404 to a valid change with another site's integration id, and changes nothing", async () => {
    const before = await readOther();
    const res = await t.call({
      method: 'PATCH',
      url: `${BASE}/${otherId}`,
      as: admin,
      site: 'main',
      payload: { repository: 'evil/repo', baseUrl: 'https://git.example.com/' },
    });
    expect(res.statusCode, res.body).toBe(404);
    expect(await readOther()).toEqual(before);
  });
});

describe('POST /api/v1/integrations/git', () => {
  it('answers 400 to every string field 200 000 characters long', async () => {
    const res = await t.call({
      method: 'POST',
      url: BASE,
      as: admin,
      site: 'main',
      payload: { ...hugeBody, provider: 'github' },
    });
    expect(res.statusCode, res.body.slice(0, 500)).toBe(400);
    expect(res.json().errors.map((e: { path: string[] }) => e.path.join('.'))).toEqual(
      expect.arrayContaining(['body.repository', 'body.baseUrl', 'body.token', 'body.webhookSecret']),
    );
  });
});

describe('baseUrl of an integration, when saved', () => {
  it('refuses a name that is loopback or resolves to a private address, on create and on change', async () => {
    // This machine's own name resolves to one of its private addresses, as an internal name of a network would.
    for (const baseUrl of ['https://localhost.', `https://${hostname()}/api`]) {
      const created = await t.call({
        method: 'POST',
        url: BASE,
        as: admin,
        site: 'other',
        payload: { provider: 'gitlab', repository: 'acme/site', baseUrl, authMethod: 'pat', token: 'glpat_x' },
      });
      expect(created.statusCode, created.body).toBe(400);
      expect(created.json().errors[0]).toMatchObject({
        code: 'VALIDATION_FAILED',
        path: ['body', 'baseUrl'],
        extensions: { reason: 'private_address' },
      });
      const before = await readOther();
      const changed = await t.call({
        method: 'PATCH',
        url: `${BASE}/${otherId}`,
        as: admin,
        site: 'other',
        payload: { baseUrl },
      });
      expect(changed.statusCode, changed.body).toBe(400);
      expect(await readOther()).toEqual(before);
    }
  });
});
