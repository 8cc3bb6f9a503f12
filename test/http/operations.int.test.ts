import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../setup/app.ts';

const METRICS = 'metrics-token-0123456789';
const OBSERVER = 'observer-token-0123456789';
let t: TestApp;
let admin: string;

beforeAll(async () => {
  t = await createTestApp({ env: { METRICS_TOKEN: METRICS, SVC_OBSERVABILITY_TOKEN: OBSERVER } });
  admin = await t.setup();
});
afterAll(() => t.close());

describe('GET /metrics', () => {
  it('needs the metrics token, then shows requests by route, append latency, projection lag and rejections', async () => {
    expect((await t.call({ method: 'GET', url: '/metrics' })).statusCode).toBe(401);
    expect(
      (await t.call({ method: 'GET', url: '/metrics', headers: { 'x-svc-observability-token': 'wrong' } })).statusCode,
    ).toBe(401);
    await t.call({ method: 'GET', url: '/api/v1/site', as: admin, site: 'main' });
    await t.call({ method: 'PATCH', url: '/api/v1/site', as: admin, site: 'main', payload: { name: 'Renamed' } });
    const res = await t.call({ method: 'GET', url: '/metrics', headers: { 'x-svc-observability-token': METRICS } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/plain/);
    expect(res.body).toMatch(/svc_http_requests_total\{method="GET",route="\/api\/v1\/site",status="200"\} [1-9]/);
    expect(res.body).toMatch(
      /svc_http_request_duration_seconds_bucket\{le="[^"]+",method="PATCH",route="\/api\/v1\/site"\}/,
    );
    expect(res.body).toMatch(/svc_event_store_append_seconds_count [1-9]/);
    expect(res.body).toMatch(/svc_projection_lag_events\{projection="item-documents"\} 0/);
    expect(res.body).toContain('svc_rate_limit_rejections_total');
  });
});

describe('GET /health', () => {
  it('gives anonymous callers the status only, and observers every subsystem', async () => {
    expect((await t.call({ method: 'GET', url: '/health' })).json()).toEqual({ status: 'ok', env: 'development' });
    const detail = (
      await t.call({ method: 'GET', url: '/health', headers: { 'x-svc-observability-token': OBSERVER } })
    ).json();
    expect(detail).toMatchObject({ status: 'ok', database: { status: 'ok' }, eventStore: { status: 'ok' } });
    expect(detail.redis.status).toBe(process.env.TEST_REDIS_URL ? 'ok' : 'not_configured');
    expect(detail.projections.length).toBeGreaterThan(3);
  });
});

describe('retiring routes', () => {
  it('answer Deprecation, Sunset and a Link to the changelog; current routes do not', async () => {
    const old = await t.call({ method: 'GET', url: '/api/v1/auth/profile', as: admin });
    expect(old.statusCode).toBe(200);
    expect(old.headers.deprecation).toBe(`@${Date.parse('2026-11-01') / 1000}`);
    expect(old.headers.sunset).toBe('Wed, 30 Jun 2027 00:00:00 GMT');
    expect(old.headers.link).toBe('</api/v1/openapi.json#/paths/~1api~1v1~1auth~1profile/get>; rel="deprecation"');
    expect((await t.call({ method: 'GET', url: '/api/v1/auth/profile' })).headers.sunset).toBeDefined();
    const current = await t.call({ method: 'GET', url: '/api/v1/auth/me', as: admin });
    expect(current.headers.deprecation).toBeUndefined();
    expect(current.json().data).toEqual(old.json().data);
  });

  it('link to an address the service serves: the OpenAPI operation that says what replaces the route', async () => {
    const old = await t.call({ method: 'GET', url: '/api/v1/auth/profile', as: admin });
    const target = /^<([^>]+)>; rel="deprecation"$/.exec(String(old.headers.link))?.[1] ?? '';
    const [address, fragment] = target.split('#');
    const doc = await t.call({ method: 'GET', url: address! });
    expect(doc.statusCode).toBe(200);
    // The fragment is a JSON pointer (RFC 6901) into the document.
    const operation = decodeURIComponent(fragment!)
      .split('/')
      .slice(1)
      .map((k) => k.replaceAll('~1', '/').replaceAll('~0', '~'))
      .reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], doc.json());
    expect(operation).toMatchObject({ deprecated: true, description: expect.stringContaining('/api/v1/auth/me') });
    expect((operation as { description: string }).description).toContain('2027-06-30');
  });
});
