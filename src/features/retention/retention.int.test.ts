import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, createTestApp, type TestApp } from '../../../test/setup/app.ts';
import { createUser } from '../../../test/setup/users.ts';
import { ManualClock } from '../../kernel/clock.ts';
import { queueMail } from '../../platform/mail/outbox.ts';
import { MAIL_MAX_ATTEMPTS } from '../../platform/mail/outbox.ts';
import { withSystem } from '../../kernel/tenancy/site.ts';
import { runRetentionEverywhere } from './index.ts';

const DAY = 86_400_000;
const PASSWORD = 'Retention-pass-4242!';
const clock = new ManualClock(new Date());
let t: TestApp;
let admin: string;
let siteAdmin: string;

beforeAll(async () => {
  t = await createTestApp({ clock, env: { SVC_RETENTION_MAIL_OUTBOX_DAYS: '60' } });
  admin = await t.setup();
  const other = await t.call({ method: 'POST', url: '/api/v1/sites', as: admin, payload: { id: 'other', name: 'O' } });
  expect(other.statusCode).toBe(201);
  siteAdmin = await createUser(t, 'sa@example.com', PASSWORD, { main: 'site_admin' });
});
afterAll(() => t.close());

const get = (site = 'main', as = admin) => t.call({ method: 'GET', url: '/api/v1/retention', as, site });
const run = (site = 'main', as = admin) => t.call({ method: 'POST', url: '/api/v1/retention/run', as, site });
const patchRetention = (retention: unknown, as = admin, site = 'main') =>
  t.call({
    method: 'PATCH',
    url: '/api/v1/site',
    as,
    site,
    headers: { 'content-type': 'application/json' },
    payload: `{"settings":{"retention":${typeof retention === 'string' ? retention : JSON.stringify(retention)}}}`,
  });
const horizon = async (kind: string, site = 'main') => {
  const res = await get(site);
  expect(res.statusCode, res.body).toBe(200);
  return (res.json().data as { kind: string }[]).find((h) => h.kind === kind);
};

/** A mail of `site` in the outbox: sent `sentDaysAgo` days before the clock, failed for good, or waiting. */
const mail = async (site: string, state: { sentDaysAgo?: number; failedDaysAgo?: number; waitingDaysAgo?: number }) => {
  const to = `${Math.random().toString(36).slice(2)}@example.com`;
  await queueMail(t.deps.db, { siteId: site, to, subject: 's', body: 'b', kind: 'test' });
  const now = clock.now().getTime();
  const sentAt = state.sentDaysAgo === undefined ? null : new Date(now - state.sentDaysAgo * DAY);
  const createdAt = new Date(now - (state.sentDaysAgo ?? state.failedDaysAgo ?? state.waitingDaysAgo ?? 0) * DAY);
  const attempts = state.failedDaysAgo === undefined ? (sentAt ? 1 : 0) : MAIL_MAX_ATTEMPTS;
  await withSystem(t.deps.db, (trx) =>
    sql`update outbox set sent_at = ${sentAt}, created_at = ${createdAt}, attempts = ${attempts}
        where to_address = ${to}`.execute(trx),
  );
  return to;
};
const outbox = async (site: string) =>
  (
    await withSystem(t.deps.db, (trx) =>
      sql<{ to_address: string }>`select to_address from outbox where site_id = ${site}`.execute(trx),
    )
  ).rows.map((r) => r.to_address);

describe('GET /api/v1/retention', () => {
  it('lists every kind with its horizon, from the environment or the documented default', async () => {
    const res = await get();
    expect(res.statusCode, res.body).toBe(200);
    const byKind = new Map((res.json().data as { kind: string }[]).map((h) => [h.kind, h]));
    expect([...byKind.keys()].sort()).toEqual(
      ['activity', 'flow_runs', 'mail_outbox', 'notifications', 'sar_exports', 'sessions', 'webhook_deliveries'].sort(),
    );
    expect(byKind.get('mail_outbox')).toMatchObject({ days: 60, source: 'env', available: true, scope: 'site' });
    expect(byKind.get('webhook_deliveries')).toMatchObject({ days: 30, source: 'default', available: true });
    expect(byKind.get('sar_exports')).toMatchObject({ days: 30, source: 'default', available: true, scope: 'site' });
    expect(byKind.get('sessions')).toMatchObject({ days: 90, source: 'default', available: true, scope: 'instance' });
    expect(byKind.get('activity')).toMatchObject({ days: 365, source: 'default', available: false });
    for (const kind of ['notifications', 'flow_runs'])
      expect(byKind.get(kind)).toMatchObject({ days: 90, source: 'default', available: true, scope: 'site' });
  });

  it('takes the site setting over the environment over the default, for that site only', async () => {
    const res = await patchRetention({ mail_outbox: 7, webhook_deliveries: 3 });
    expect(res.statusCode, res.body).toBe(200);
    expect(await horizon('mail_outbox')).toMatchObject({ days: 7, source: 'site' });
    expect(await horizon('webhook_deliveries')).toMatchObject({ days: 3, source: 'site' });
    expect(await horizon('mail_outbox', 'other')).toMatchObject({ days: 60, source: 'env' });
    expect(await horizon('webhook_deliveries', 'other')).toMatchObject({ days: 30, source: 'default' });
    // The setting is replaced as a whole; an empty object clears it.
    expect((await patchRetention({})).statusCode).toBe(200);
    expect(await horizon('mail_outbox')).toMatchObject({ days: 60, source: 'env' });
    expect(await horizon('webhook_deliveries')).toMatchObject({ days: 30, source: 'default' });
  });

  it('refuses bad settings with 400 and the path of the bad key or value', async () => {
    const cases: [string, string[]][] = [
      ['{"__proto__":1}', ['__proto__']],
      ['{"constructor":5}', ['constructor']],
      ['{"bogus":5}', ['bogus']],
      ['{"sessions":7}', ['sessions']],
      ['{"mail_outbox":0}', ['mail_outbox']],
      ['{"mail_outbox":1000000000}', ['mail_outbox']],
      ['{"mail_outbox":1.5}', ['mail_outbox']],
      ['{"mail_outbox":"30"}', ['mail_outbox']],
      ['[30]', []],
    ];
    for (const [body, at] of cases) {
      const res = await patchRetention(body);
      expect(res.statusCode, body).toBe(400);
      expect(res.json().errors[0]).toMatchObject({
        code: 'VALIDATION_FAILED',
        path: ['body', 'settings', 'retention', ...at],
      });
    }
    expect(await horizon('mail_outbox')).toMatchObject({ days: 60, source: 'env' });
  });

  it('is for the site’s administrators: 403 for a site_admin (settings included), 401 without a token', async () => {
    expect((await get('main', siteAdmin)).statusCode).toBe(403);
    expect((await run('main', siteAdmin)).statusCode).toBe(403);
    expect((await patchRetention({ mail_outbox: 5 }, siteAdmin)).statusCode).toBe(403);
    const other = await t.call({
      method: 'PATCH',
      url: '/api/v1/site',
      as: siteAdmin,
      site: 'main',
      payload: { settings: { public_registration: false } },
    });
    expect(other.statusCode, other.body).toBe(200);
    expect((await t.call({ method: 'GET', url: '/api/v1/retention', site: 'main' })).statusCode).toBe(401);
    expect((await t.call({ method: 'POST', url: '/api/v1/retention/run', site: 'main' })).statusCode).toBe(401);
    expect((await get('other', siteAdmin)).statusCode).toBe(403);
  });
});

describe('POST /api/v1/retention/run', () => {
  it('prunes sent and given-up mails past the horizon, keeps younger and unsent ones, on its own site only', async () => {
    const oldSent = await mail('main', { sentDaysAgo: 61 });
    const oldFailed = await mail('main', { failedDaysAgo: 61 });
    const youngSent = await mail('main', { sentDaysAgo: 59 });
    const oldWaiting = await mail('main', { waitingDaysAgo: 400 });
    const otherOld = await mail('other', { sentDaysAgo: 400 });

    const res = await run();
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toEqual({
      ranAt: clock.now().toISOString(),
      counts: { notifications: 0, mail_outbox: 2, webhook_deliveries: 0, flow_runs: 0, sar_exports: 0 },
    });
    const left = await outbox('main');
    expect(left).toEqual(expect.arrayContaining([youngSent, oldWaiting]));
    expect(left).not.toContain(oldSent);
    expect(left).not.toContain(oldFailed);
    expect(await outbox('other')).toContain(otherOld);
  });

  it('prunes nothing on a second run at the same time', async () => {
    const before = await outbox('main');
    const res = await run();
    expect(res.json().data.counts).toEqual({
      notifications: 0,
      mail_outbox: 0,
      webhook_deliveries: 0,
      flow_runs: 0,
      sar_exports: 0,
    });
    expect(await outbox('main')).toEqual(before);
  });

  it('follows the site setting: a shorter horizon prunes what the environment’s kept', async () => {
    const fresh = await mail('main', { sentDaysAgo: 1 });
    const tenDays = await mail('main', { sentDaysAgo: 10 });
    expect((await patchRetention({ mail_outbox: 7 })).statusCode).toBe(200);
    expect((await run()).json().data.counts.mail_outbox).toBeGreaterThanOrEqual(1);
    const left = await outbox('main');
    expect(left).toContain(fresh);
    expect(left).not.toContain(tenDays);
    expect((await patchRetention({})).statusCode).toBe(200);
  });

  it('is recorded as a RetentionRun event with its counts, horizons and actor', async () => {
    const res = await t.call({ method: 'GET', url: '/api/v1/audit?type=RetentionRun', as: admin, site: 'main' });
    expect(res.statusCode, res.body).toBe(200);
    const events = res.json().data as { type: string; actor: { type: string }; data: Record<string, unknown> }[];
    expect(events.length).toBe(3);
    expect(events[2]).toMatchObject({
      type: 'RetentionRun',
      actor: { type: 'user' },
      data: {
        siteId: 'main',
        counts: { notifications: 0, mail_outbox: 2, webhook_deliveries: 0, flow_runs: 0, sar_exports: 0 },
        horizons: {
          mail_outbox: { days: 60, source: 'env', before: new Date(clock.now().getTime() - 60 * DAY).toISOString() },
          webhook_deliveries: { days: 30, source: 'default' },
        },
      },
    });
    const other = await t.call({ method: 'GET', url: '/api/v1/audit?type=RetentionRun', as: admin, site: 'other' });
    expect(other.json().data).toEqual([]);
  });
});

describe('the daily run', () => {
  const sid = (token: string) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()).sid as string;
  const sessions = async () =>
    (
      await withSystem(t.deps.db, (trx) =>
        sql<{ session_id: string }>`select session_id from sessions order by session_id`.execute(trx),
      )
    ).rows.map((r) => r.session_id);

  it('prunes every site and ended sessions past the horizon, never a live one; a rebuild then a run agree', async () => {
    const otherOld = await mail('other', { sentDaysAgo: 100 });
    const live = sid(await createUser(t, 'live@example.com', PASSWORD, { main: 'editor' }));
    const endedToken = await createUser(t, 'ended@example.com', PASSWORD, { main: 'editor' });
    const ended = sid(endedToken);
    const out = await t.call({ method: 'DELETE', url: '/api/v1/me/sessions', as: endedToken, site: 'main' });
    expect(out.statusCode, out.body).toBeLessThan(300);

    clock.advance(95 * DAY); // `ended` ended 95 days ago; `live` expires 14 days after its start
    const fresh = sid(await createUser(t, 'fresh@example.com', PASSWORD, { main: 'editor' }));
    const first = await runRetentionEverywhere(t.deps);
    expect(first.get('_system')!.counts.sessions).toBeGreaterThanOrEqual(1);
    expect(first.get('other')!.counts.mail_outbox).toBeGreaterThanOrEqual(1);
    expect(await outbox('other')).not.toContain(otherOld);
    let left = await sessions();
    expect(left).toEqual(expect.arrayContaining([live, fresh]));
    expect(left).not.toContain(ended);

    clock.advance(10 * DAY); // `live` expired 91 days ago; `fresh` is still live
    await runRetentionEverywhere(t.deps);
    left = await sessions();
    expect(left).not.toContain(live);
    expect(left).toContain(fresh);

    await t.deps.engine.rebuild('sessions');
    expect(await sessions()).toEqual(expect.arrayContaining([live, ended, fresh]));
    const again = await runRetentionEverywhere(t.deps);
    expect(again.get('_system')!.counts.sessions).toBeGreaterThanOrEqual(2);
    expect(await sessions()).toEqual(left);
    expect((await runRetentionEverywhere(t.deps)).get('_system')!.counts).toEqual({ sessions: 0 });

    // The setup's own session expired and was pruned: the admin logs in again.
    const login = await t.call({ method: 'POST', url: '/api/v1/auth/login', payload: ADMIN });
    const again2 = login.json().data.token as string;
    const audit = await t.call({ method: 'GET', url: '/api/v1/audit?type=RetentionRun', as: again2, site: 'other' });
    expect(audit.json().data[0]).toMatchObject({ actor: { type: 'system', id: 'retention' } });
  });
});
