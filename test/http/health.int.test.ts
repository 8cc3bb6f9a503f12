import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../setup/app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ env: { SVC_OBSERVABILITY_TOKEN: 'observe-me' } });
});
afterAll(() => t.close());

describe('GET /health', () => {
  it('shows subsystem detail only with the observability token', async () => {
    const anonymous = await t.call({ method: 'GET', url: '/health' });
    expect(anonymous.json()).toEqual({ status: 'ok', env: 'development' });
    const wrong = await t.call({ method: 'GET', url: '/health', headers: { 'x-svc-observability-token': 'guess' } });
    expect(wrong.json()).toEqual({ status: 'ok', env: 'development' });
    const detail = await t.call({
      method: 'GET',
      url: '/health',
      headers: { 'x-svc-observability-token': 'observe-me' },
    });
    expect(detail.statusCode).toBe(200);
    expect(detail.json()).toMatchObject({
      status: 'ok',
      database: { status: 'ok', kind: process.env.TEST_DATABASE_URL ? 'postgres' : 'pglite' },
      eventStore: { status: 'ok' },
      projections: expect.arrayContaining([expect.objectContaining({ name: 'sites', lag: 0 })]),
    });
  });
});
