import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../setup/app.ts';

/**
 * The same mistake gets the same answer on every route: a path id that is empty or blank is 400 VALIDATION_FAILED
 * with the parameter's path (`['params', name]`), never a 422 of one slice or a 404 of another.
 */
type Operation = { parameters?: { in: string; name: string }[] };
type Doc = { paths: Record<string, Record<string, Operation>> };

let t: TestApp;
let admin: string;
let doc: Doc;

beforeAll(async () => {
  t = await createTestApp();
  admin = await t.setup();
  const res = await t.call({ method: 'GET', url: '/api/v1/openapi.json' });
  doc = res.json();
}, 120_000);
afterAll(() => t?.close());

/** Webhook receivers check the sender's signature before they read the address (401 first, as for any stranger). */
const RECEIVERS = ['/api/v1/integrations/git/webhook/'];

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

/** A value of the right form for every other parameter, so only the one under test is wrong. */
const SAMPLE: Record<string, string> = { sha256: 'a'.repeat(64), name: 'x1', site_id: 'main', type: 'marketing' };
const sample = (name: string) => SAMPLE[name] ?? 'x1';

async function answer(method: string, url: string) {
  const res = await t.call({
    method: method.toUpperCase() as 'GET',
    url,
    as: admin,
    site: 'main',
    ...(method === 'get' || method === 'delete' ? {} : { payload: {} }),
  });
  return { status: res.statusCode, body: res.json() as { errors?: { code: string; path: string[] }[] } };
}

describe('A blank path id', () => {
  it('is 400 VALIDATION_FAILED with the parameter path on every route of the OpenAPI document', async () => {
    const wrong: string[] = [];
    let checked = 0;
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const method of METHODS) {
        const op = item[method];
        if (!op || path.endsWith('/{path}') || RECEIVERS.some((r) => path.startsWith(r))) continue;
        const params = (op.parameters ?? []).filter((p) => p.in === 'path').map((p) => p.name);
        for (const blank of params) {
          const url = path.replace(/\{([^}]+)\}/g, (_, n: string) => (n === blank ? '%20' : sample(n)));
          const { status, body } = await answer(method, url);
          checked += 1;
          const named = body.errors?.some((e) => e.code === 'VALIDATION_FAILED' && e.path.join() === `params,${blank}`);
          if (status !== 400 || !named) wrong.push(`${method.toUpperCase()} ${path} {${blank}}: ${status}`);
        }
      }
    }
    expect(checked).toBeGreaterThan(150);
    expect(wrong).toEqual([]);
  }, 300_000);
});

describe('An empty path id', () => {
  it('is 400 on a release as on an item (was 422 on releases)', async () => {
    for (const url of ['/api/v1/releases/', '/api/v1/items/articles/']) {
      const { status, body } = await answer('patch', url);
      expect(status, url).toBe(400);
      expect(body.errors?.[0]?.code).toBe('VALIDATION_FAILED');
    }
  });
});
