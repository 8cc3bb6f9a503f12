import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';

let t: TestApp;
let admin: string;
const create = async (payload: Record<string, unknown>) => {
  const res = await t.call({ method: 'POST', url: '/api/v1/pages', as: admin, site: 'main', payload });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data as { status: string };
};
const deliver = (slug: string) => t.call({ method: 'GET', url: `/api/v1/deliver/page/main/${slug}` });

beforeAll(async () => {
  t = await createTestApp({ env: { SVC_NEGATIVE_CACHE_TTL: '30' } });
  admin = await t.setup();
});
afterAll(() => t.close());

describe('POST /api/v1/pages without a status', () => {
  it('creates a published page that is delivered at once', async () => {
    expect((await create({ slug: 'fresh', title: 'Fresh' })).status).toBe('published');
    const res = await deliver('fresh');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.page.title).toBe('Fresh');
  });

  it('is delivered at once after the slug was answered 404 from the negative cache', async () => {
    expect((await deliver('awaited')).statusCode).toBe(404);
    const cached = await deliver('awaited');
    expect([cached.statusCode, cached.headers['x-svc-cache']]).toEqual([404, 'negative']);
    await create({ slug: 'awaited', title: 'Awaited' });
    const res = await deliver('awaited');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.page.slug).toBe('awaited');
  });

  it('keeps an explicit draft undelivered', async () => {
    expect((await create({ slug: 'hidden', title: 'Hidden', status: 'draft' })).status).toBe('draft');
    expect((await deliver('hidden')).statusCode).toBe(404);
  });
});
