import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unsubscribeToken } from '../../src/features/email/index.ts';
import { createTestApp, type TestApp } from '../../test/setup/app.ts';

/** The suppression list is the log's: rebuilt from it, it equals what the live projection built. */
let t: TestApp;
let admin: string;
const BASE = '/api/v1/email/suppressions';
const call = async (method: 'POST' | 'DELETE', url: string, payload?: object, site = 'main') => {
  const res = await t.call({ method, url, as: admin, site, ...(payload ? { payload } : {}) });
  expect(res.statusCode, res.body).toBeLessThan(300);
};
const dump = async () =>
  JSON.parse(
    JSON.stringify(
      (await sql`select * from email_suppressions order by site_id, email_hash`.execute(t.deps.database.owner)).rows,
    ),
  ) as unknown[];

beforeAll(async () => {
  t = await createTestApp();
  admin = await t.setup();
  await t.call({ method: 'POST', url: '/api/v1/sites', as: admin, payload: { id: 'other', name: 'Other' } });
  await call('POST', BASE, { email: 'a@example.com', reason: 'bounced' });
  await call('POST', BASE, { email: 'b@example.com' });
  await call('POST', BASE, { email: 'a@example.com' }, 'other');
  await call('DELETE', `${BASE}/b%40example.com`);
  await call('POST', BASE, { email: 'B@example.com', reason: 'again' });
  const token = await unsubscribeToken(t.deps, 'other', 'c@example.com');
  await t.call({ method: 'POST', url: `/api/v1/email/unsubscribe?token=${token}` });
});
afterAll(() => t.close());

describe('email-suppressions read model', () => {
  it('rebuilt from the log equals its live projection', async () => {
    const live = await dump();
    expect(live).toHaveLength(4);
    expect(live).toContainEqual(expect.objectContaining({ site_id: 'main', source: 'admin', reason: 'again' }));
    expect(live).toContainEqual(expect.objectContaining({ site_id: 'other', source: 'unsubscribe', reason: null }));
    await t.deps.engine.rebuild('email-suppressions');
    expect(await dump()).toEqual(live);
  });
});
