import { afterAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../setup/app.ts';

/** Three delivery requests per client IP are allowed here; the fourth is 429. */
async function deliverFrom(t: TestApp, forwardedFor: string): Promise<number> {
  const res = await t.call({
    method: 'GET',
    url: '/api/v1/deliver/page/main/nowhere',
    headers: { 'x-forwarded-for': forwardedFor },
  });
  return res.statusCode;
}

describe('SVC_TRUST_PROXY', () => {
  const apps: TestApp[] = [];
  afterAll(() => Promise.all(apps.map((a) => a.close())));
  const start = async (env: Record<string, string>) => {
    const t = await createTestApp({ env: { SVC_DELIVER_RATE_LIMIT: '3', SVC_NEGATIVE_CACHE_TTL: '0', ...env } });
    apps.push(t);
    await t.setup();
    return t;
  };

  it('unset, per-IP limits count the socket address, whatever X-Forwarded-For claims', async () => {
    const t = await start({});
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push(await deliverFrom(t, `203.0.113.${i + 1}`));
    expect(statuses.at(-1)).toBe(429);
  });

  it('with a hop count, per-IP limits count the client the proxy names', async () => {
    const t = await start({ SVC_TRUST_PROXY: '1' });
    for (let i = 0; i < 3; i++) expect(await deliverFrom(t, '203.0.113.7')).toBe(404);
    expect(await deliverFrom(t, '203.0.113.7')).toBe(429);
    expect(await deliverFrom(t, '203.0.113.8')).toBe(404);
  });

  it('with an address list, only those proxies are believed', async () => {
    const t = await start({ SVC_TRUST_PROXY: '127.0.0.1/32,10.0.0.0/8' });
    for (let i = 0; i < 4; i++) expect(await deliverFrom(t, `198.51.100.${i + 1}`)).toBe(404);
    const other = await start({ SVC_TRUST_PROXY: '10.0.0.0/8' });
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push(await deliverFrom(other, `198.51.100.${i + 1}`));
    expect(statuses.at(-1)).toBe(429);
  });
});
