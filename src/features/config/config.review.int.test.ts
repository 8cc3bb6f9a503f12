import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';
import { createUser } from '../../../test/setup/users.ts';

/**
 * Review probes of configuration as code: tenancy, roles, hostile manifests, and plans the dry run calls valid
 * that the schema's own rules would refuse at apply time.
 */
let t: TestApp;
let admin: string;
let siteAdmin: string;
let adminOfA: string;
type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'PUT';
const V = 'svc.config@v1';

beforeAll(async () => {
  t = await createTestApp({ env: { SVC_WEBHOOK_ALLOW_PRIVATE: 'true' } });
  admin = await t.setup();
  for (const id of ['rev-a', 'rev-b', 'rev-c'])
    await t.call({ method: 'POST', url: '/api/v1/sites', as: admin, payload: { id, name: id } });
  siteAdmin = await createUser(t, 'sa@review.test', 'Site-admin-pass-1618!', { 'rev-a': 'site_admin' });
  adminOfA = await createUser(t, 'a@review.test', 'Admin-of-a-pass-1618!', { 'rev-a': 'admin' });
});
afterAll(() => t.close());

const call = (method: Method, url: string, payload?: unknown, site = 'rev-a', as = admin, headers = {}) =>
  t.call({ method, url, as, site, headers, ...(payload === undefined ? {} : { payload: payload as object }) });
const ok = async (method: Method, url: string, payload?: unknown, site = 'rev-a') => {
  const res = await call(method, url, payload, site);
  expect(res.statusCode, res.body).toBeLessThan(300);
  return res.statusCode === 204 ? null : res.json().data;
};
const envelopeOf = (body: string) => JSON.parse(body) as { errors?: { code: string; path: string[] }[] };

describe('config review: tenancy and roles', () => {
  it("keeps an admin of one site out of another site's config, whatever names the site", async () => {
    await ok('POST', '/api/v1/collections', { name: 'secret_b' }, 'rev-b');
    const spoofs: { site?: string; headers: Record<string, string> }[] = [
      { site: 'rev-b', headers: {} },
      { site: ' REV-B ', headers: {} },
      { headers: { host: 'rev-b.example.com' } },
    ];
    for (const s of spoofs) {
      for (const [method, url, body] of [
        ['GET', '/api/v1/config/export'],
        ['POST', '/api/v1/config/import?dryRun=true', { version: V }],
        ['GET', '/api/v1/collections/secret_b/schema'],
        ['GET', '/api/v1/typegen/schema'],
        ['POST', '/api/v1/collections/diff', { version: V }],
      ] as [Method, string, unknown?][]) {
        const res = await t.call({
          method,
          url,
          as: adminOfA,
          headers: s.headers,
          ...(s.site === undefined ? {} : { site: s.site }),
          ...(body === undefined ? {} : { payload: body as object }),
        });
        expect([400, 403, 404], `${method} ${url} ${JSON.stringify(s)}: ${res.body}`).toContain(res.statusCode);
        expect(res.body).not.toContain('secret_b');
      }
    }
  });

  it('lets a site admin learn nothing of the webhooks (admin-only) through POST /collections/diff', async () => {
    await ok('POST', '/api/v1/webhooks', {
      name: 'billing-sync-hidden',
      url: 'https://hooks.example.com/T0/B0/token',
      events: ['items.create'],
    });
    // replace-all with an empty list plans a delete of every webhook the site has, named.
    const res = await call(
      'POST',
      '/api/v1/collections/diff?mode=replace-all',
      { version: V, webhooks: [] },
      'rev-a',
      siteAdmin,
    );
    expect(res.statusCode).toBeLessThan(500);
    expect(res.body).not.toContain('billing-sync-hidden');
    // And an equality oracle on a guessed URL: "unchanged" vs "changes: [url]".
    const guess = await call(
      'POST',
      '/api/v1/collections/diff?mode=merge',
      {
        version: V,
        webhooks: [
          {
            name: 'billing-sync-hidden',
            url: 'https://hooks.example.com/T0/B0/token',
            events: ['items.create'],
            collections: null,
            enabled: true,
          },
        ],
      },
      'rev-a',
      siteAdmin,
    );
    expect(guess.statusCode === 403 || guess.statusCode === 422, guess.body).toBe(true);
  });

  it('refuses If-Match garbage with 400 and takes a weak ETag', async () => {
    const plan = await call('POST', '/api/v1/config/import?dryRun=true', { version: V });
    const etag = plan.headers.etag as string;
    const garbage = await call('POST', '/api/v1/config/import', { version: V }, 'rev-a', admin, { 'if-match': 'abc' });
    expect(garbage.statusCode).toBe(400);
    const weak = await call('POST', '/api/v1/config/import', { version: V }, 'rev-a', admin, {
      'if-match': `W/${etag}`,
    });
    expect(weak.statusCode, weak.body).toBe(200);
    const stale = await call('POST', '/api/v1/config/import', { version: V }, 'rev-a', admin, {
      'if-match': '"999999"',
    });
    expect(stale.statusCode).toBe(409);
  });
});

describe('config review: hostile manifests', () => {
  it('refuses __proto__ keys inside options, default and workflow transitions (4xx, no pollution); if ever taken, re-plans to nothing', async () => {
    const manifest = JSON.parse(`{
      "version": "${V}",
      "collections": [{ "name": "proto_c", "versioning": true,
        "workflow": { "field": "status", "transitions": { "__proto__": ["draft"], "draft": ["published"] } } }],
      "fields": [
        { "collection": "proto_c", "field": "meta", "type": "json",
          "options": { "__proto__": { "polluted": true }, "constructor": { "prototype": { "polluted": true } } },
          "default": { "__proto__": { "polluted": true } } }
      ]
    }`);
    const res = await call('POST', '/api/v1/config/import?mode=merge', manifest, 'rev-c');
    expect(res.statusCode, res.body).toBeLessThan(500);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    if (res.statusCode === 200) {
      const again = await call('POST', '/api/v1/config/import?mode=merge&dryRun=true', manifest, 'rev-c');
      expect(again.statusCode, again.body).toBe(200);
      expect(again.json().data.operations).toEqual([]);
      const exported = (await call('GET', '/api/v1/config/export', undefined, 'rev-c')).json().data;
      const back = await call('POST', '/api/v1/config/import?mode=replace-all&dryRun=true', exported, 'rev-c');
      expect(back.json().data.operations).toEqual([]);
    }
  });

  it('answers a deeply nested default with 4xx, never 5xx', async () => {
    for (const depth of [5_000, 200_000]) {
      const deep = '['.repeat(depth) + ']'.repeat(depth);
      const payload = `{"version":"${V}","collections":[{"name":"deep_${depth}","versioning":true}],"fields":[{"collection":"deep_${depth}","field":"d","type":"json","default":${deep}}]}`;
      const res = await t.call({
        method: 'POST',
        url: '/api/v1/config/import?mode=merge',
        as: admin,
        site: 'rev-c',
        headers: { 'content-type': 'application/json' },
        payload,
      });
      expect(res.statusCode, `depth ${depth}: ${res.body.slice(0, 300)}`).toBeLessThan(500);
      expect(envelopeOf(res.body)).toBeTypeOf('object');
    }
  });

  it('refuses a field named after a system field in the dry run, as the apply would', async () => {
    for (const name of ['status', 'id', 'created_at']) {
      const manifest = {
        version: V,
        collections: [{ name: `sys_${name}`, versioning: true }],
        fields: [{ collection: `sys_${name}`, field: name, type: 'string' }],
      };
      const dry = await call('POST', '/api/v1/config/import?dryRun=true', manifest, 'rev-c');
      const apply = await call('POST', '/api/v1/config/import', manifest, 'rev-c');
      expect(apply.statusCode, apply.body).toBeGreaterThanOrEqual(400);
      expect(apply.statusCode, apply.body).toBeLessThan(500);
      // The dry run must say what the apply says: not valid, with the manifest's path.
      expect(dry.statusCode, `${name}: ${dry.body}`).toBe(422);
      expect(apply.json().errors[0].path).toEqual(['fields', '0', 'field']);
    }
  });

  it('refuses a relation carried by, or reversed onto, the system collection files in the dry run', async () => {
    await ok('POST', '/api/v1/collections', { name: 'host' }, 'rev-c');
    await ok('POST', '/api/v1/fields/host', { field: 'backrefs', type: 'json' }, 'rev-c');
    const cases = [
      { kind: 'm2o', collection: 'files', field: 'title', target: 'host' },
      { kind: 'o2m', collection: 'host', field: 'backrefs', target: 'files', targetField: 'title' },
    ];
    for (const relation of cases) {
      const manifest = { version: V, relations: [relation] };
      const dry = await call('POST', '/api/v1/config/import?dryRun=true', manifest, 'rev-c');
      const apply = await call('POST', '/api/v1/config/import', manifest, 'rev-c');
      expect(apply.statusCode, apply.body).toBeGreaterThanOrEqual(400);
      expect(apply.statusCode, apply.body).toBeLessThan(500);
      expect(dry.statusCode, `${JSON.stringify(relation)}: ${dry.body}`).toBe(422);
    }
  });

  it("refuses a soft-deleted collection's name in fields, relations and PUT, and reads it as absent", async () => {
    await ok('POST', '/api/v1/collections', { name: 'gone_c' }, 'rev-c');
    await ok('POST', '/api/v1/fields/gone_c', { field: 'x', type: 'string' }, 'rev-c');
    await ok('POST', '/api/v1/items/gone_c', { x: 'kept' }, 'rev-c');
    await ok('DELETE', '/api/v1/collections/gone_c', undefined, 'rev-c');
    expect((await call('GET', '/api/v1/collections/gone_c/schema', undefined, 'rev-c')).statusCode).toBe(404);
    const fields = await call(
      'POST',
      '/api/v1/config/import?dryRun=true',
      { version: V, fields: [{ collection: 'gone_c', field: 'y', type: 'string' }] },
      'rev-c',
    );
    expect(fields.statusCode).toBe(422);
    const put = await call(
      'PUT',
      '/api/v1/collections/gone_c/schema',
      { version: V, collections: [{ name: 'gone_c', versioning: true }] },
      'rev-c',
    );
    expect(put.statusCode).toBe(422);
  });

  it('keeps a collection-schema PUT from deleting the collection itself without allowDestructive when it holds items', async () => {
    await ok('POST', '/api/v1/collections', { name: 'keepme' }, 'rev-c');
    await ok('POST', '/api/v1/fields/keepme', { field: 'x', type: 'string' }, 'rev-c');
    await ok('POST', '/api/v1/items/keepme', { x: 'v' }, 'rev-c');
    const res = await call('PUT', '/api/v1/collections/keepme/schema', { version: V, collections: [] }, 'rev-c', admin);
    expect(res.statusCode).toBe(409);
    expect((await call('GET', '/api/v1/collections/keepme', undefined, 'rev-c')).statusCode).toBe(200);
  });

  it('weighs a field whose values live only in a named version (draft) as holding data', async () => {
    await ok('POST', '/api/v1/collections', { name: 'drafty' }, 'rev-c');
    await ok('POST', '/api/v1/fields/drafty', { field: 'title', type: 'string' }, 'rev-c');
    await ok('POST', '/api/v1/fields/drafty', { field: 'body', type: 'text' }, 'rev-c');
    await ok('POST', '/api/v1/items/drafty', { id: 'd1', title: 'Main' }, 'rev-c');
    await ok('POST', '/api/v1/items/drafty/d1/versions', { key: 'draft', name: 'Rewrite' }, 'rev-c');
    await ok('PATCH', '/api/v1/items/drafty/d1/versions/draft', { data: { body: 'Only in the draft' } }, 'rev-c');
    const bundle = (await call('GET', '/api/v1/collections/drafty/schema', undefined, 'rev-c')).json().data;
    const without = { ...bundle, fields: bundle.fields.filter((f: { field: string }) => f.field !== 'body') };
    const res = await call('PUT', '/api/v1/collections/drafty/schema', without, 'rev-c');
    expect(res.statusCode, res.body).toBe(409);
    expect(res.json().errors[0].code).toBe('DESTRUCTIVE_BLOCKED');
  });

  it('plans 2 000 relations in one manifest (the limit), and answers one more with 422 on its path', async () => {
    const collections = Array.from({ length: 4 }, (_, i) => ({ name: `bulk_${i}`, versioning: true }));
    const fields = collections.flatMap((c) =>
      Array.from({ length: 500 }, (_, j) => ({ collection: c.name, field: `r${j}`, type: 'json' })),
    );
    const relations = fields.map((f) => ({ kind: 'm2a', collection: f.collection, field: f.field }));
    const res = await call(
      'POST',
      '/api/v1/config/import?dryRun=true',
      { version: V, collections, fields, relations },
      'rev-b',
    );
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
    expect(res.json().data.diff.relations.create).toBe(2_000);
    const more = [...relations, { kind: 'm2a', collection: 'bulk_0', field: 'r0' }];
    const over = await call(
      'POST',
      '/api/v1/config/import?dryRun=true',
      { version: V, collections, fields, relations: more },
      'rev-b',
    );
    expect(over.statusCode).toBe(422);
    expect(over.json().errors[0].path).toEqual(['relations']);
  }, 60_000);
});
