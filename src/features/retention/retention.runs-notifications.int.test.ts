import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';
import { createUser } from '../../../test/setup/users.ts';
import { ManualClock } from '../../kernel/clock.ts';
import { notify } from '../notifications/index.ts';
import type { Recipient } from '../../contracts/notifications/notifications.events.ts';
import { runDueFlows } from '../flows/runs/flow-run.worker.ts';
import { runRetentionEverywhere } from './index.ts';

const DAY = 86_400_000;
const PASSWORD = 'Retention-pass-4242!';
const clock = new ManualClock(new Date('2026-03-01T08:00:00Z'));
let t: TestApp;
let admin: string;
let editor: string;
let otherAdmin: string;

type Method = 'GET' | 'POST' | 'PATCH';
const call = (method: Method, url: string, as: string, site = 'main', payload?: object) =>
  t.call({ method, url, as, site, ...(payload === undefined ? {} : { payload }) });
const ok = async (method: Method, url: string, as: string, site = 'main', payload?: object) => {
  const res = await call(method, url, as, site, payload);
  expect(res.statusCode, res.body).toBeLessThan(300);
  return res.json().data;
};

beforeAll(async () => {
  t = await createTestApp({ clock });
  admin = await t.setup();
  await ok('POST', '/api/v1/sites', admin, 'main', { id: 'other', name: 'Other' });
  editor = await createUser(t, 'editor@retention.test', PASSWORD, { main: 'editor' });
  otherAdmin = await createUser(t, 'other.admin@retention.test', PASSWORD, { other: 'admin' });
});
afterAll(() => t.close());

/** An active manual flow of `site`: one `log` step, or a sleep of a month (a run that stays under way). */
const flow = async (site: string, as: string, sleeps = false) => {
  const node = sleeps
    ? { id: 'wait', operation: 'sleep', options: { ms: 30 * DAY } }
    : { id: 'say', operation: 'log', options: { message: 'hello' } };
  const graph = { nodes: [node], edges: [] };
  const body = { name: 'f', trigger: 'manual', status: 'active', runAs: 'admin', graph };
  return (await ok('POST', '/api/v1/flows', as, site, body)).id as string;
};
const start = async (site: string, as: string, flowId: string) =>
  (await ok('POST', `/api/v1/flows/${flowId}/run`, as, site, {})).id as string;
const runStatus = async (site: string, as: string, flowId: string, runId: string) => {
  const res = await call('GET', `/api/v1/flows/${flowId}/runs/${encodeURIComponent(runId)}`, as, site);
  return res.statusCode === 200 ? (res.json().data.status as string) : res.statusCode;
};
const raise = (site: string, id: string, recipient: Recipient) =>
  notify(t.deps, {
    siteId: site,
    notificationId: id,
    recipient,
    kind: 'approval',
    severity: 'info',
    title: id,
    body: 'body',
    deepLink: null,
    entityId: null,
    metadata: {
      siteId: site,
      actor: { type: 'system', id: 'test' },
      correlationId: 'c',
      causationId: null,
      requestId: null,
      occurredAt: clock.now().toISOString(),
    },
  });
const handle = (site: string, as: string, id: string) =>
  ok('PATCH', `/api/v1/notifications/${id}`, as, site, { handled: true });
const inbox = async (site: string, as: string) =>
  ((await ok('GET', '/api/v1/notifications?limit=100', as, site)) as { id: string }[]).map((n) => n.id);

describe('retention of notifications and flow runs', () => {
  const ids = {} as Record<
    'logFlow' | 'sleepFlow' | 'otherFlow' | 'oldRun' | 'sleeping' | 'otherRun' | 'newRun' | 'pending',
    string
  >;

  it('lists both kinds as pruned, with their default horizons', async () => {
    const res = await call('GET', '/api/v1/retention', admin);
    expect(res.statusCode, res.body).toBe(200);
    const byKind = new Map((res.json().data as { kind: string }[]).map((h) => [h.kind, h]));
    expect(byKind.get('notifications')).toMatchObject({ days: 90, source: 'default', available: true });
    expect(byKind.get('flow_runs')).toMatchObject({ days: 90, source: 'default', available: true });
  });

  it('prunes handled notifications and finished runs past the horizon; keeps the rest and other sites’ rows', async () => {
    const editorId = (await ok('GET', '/api/v1/auth/me', editor)).id as string;
    ids.logFlow = await flow('main', admin);
    ids.sleepFlow = await flow('main', admin, true);
    ids.otherFlow = await flow('other', otherAdmin);
    ids.oldRun = await start('main', admin, ids.logFlow);
    ids.sleeping = await start('main', admin, ids.sleepFlow);
    ids.otherRun = await start('other', otherAdmin, ids.otherFlow);
    await runDueFlows(t.deps);
    expect(await runStatus('main', admin, ids.logFlow, ids.oldRun)).toBe('succeeded');
    expect(await runStatus('main', admin, ids.sleepFlow, ids.sleeping)).toBe('sleeping');
    await raise('main', 'old-handled', { type: 'user', id: editorId });
    await raise('main', 'old-unhandled', { type: 'user', id: editorId });
    await raise('main', 'old-admins', { type: 'admins' });
    await raise('other', 'other-handled', { type: 'admins' });
    await handle('main', editor, 'old-handled');
    await handle('main', admin, 'old-admins');
    await handle('other', otherAdmin, 'other-handled');

    clock.advance(91 * DAY);
    ids.newRun = await start('main', admin, ids.logFlow);
    // A run started before the horizon and not yet executed is still under way: kept.
    ids.pending = await start('main', admin, ids.sleepFlow);
    await raise('main', 'new-handled', { type: 'user', id: editorId });
    await handle('main', editor, 'new-handled');

    // A site's longer horizons keep them; back to the defaults, the run prunes.
    await ok('PATCH', '/api/v1/site', admin, 'main', {
      settings: { retention: { notifications: 365, flow_runs: 365 } },
    });
    const kept = await ok('POST', '/api/v1/retention/run', admin);
    expect(kept.counts).toMatchObject({ notifications: 0, flow_runs: 0 });
    await ok('PATCH', '/api/v1/site', admin, 'main', { settings: { retention: {} } });
    const res = await ok('POST', '/api/v1/retention/run', admin);
    expect(res.counts).toMatchObject({ notifications: 2, flow_runs: 1 });

    expect(await runStatus('main', admin, ids.logFlow, ids.oldRun)).toBe(404);
    expect(await runStatus('main', admin, ids.sleepFlow, ids.sleeping)).toBe('sleeping');
    expect(await runStatus('main', admin, ids.sleepFlow, ids.pending)).toBe('running');
    expect(await runStatus('main', admin, ids.logFlow, ids.newRun)).toBe('running');
    const editorInbox = await inbox('main', editor);
    expect(editorInbox).toEqual(expect.arrayContaining(['old-unhandled', 'new-handled']));
    expect(editorInbox).not.toContain('old-handled');
    expect(await inbox('main', admin)).not.toContain('old-admins');
    // Another site's rows are that site's run's to prune.
    expect(await runStatus('other', otherAdmin, ids.otherFlow, ids.otherRun)).toBe('succeeded');
    expect(await inbox('other', otherAdmin)).toContain('other-handled');
    expect((await ok('POST', '/api/v1/retention/run', admin)).counts).toMatchObject({ notifications: 0, flow_runs: 0 });
  });

  it('prunes them in the daily run on every site, and again after a rebuild brought them back', async () => {
    const daily = await runRetentionEverywhere(t.deps);
    expect(daily.get('other')!.counts).toMatchObject({ notifications: 1, flow_runs: 1 });
    expect(await runStatus('other', otherAdmin, ids.otherFlow, ids.otherRun)).toBe(404);
    expect(await inbox('other', otherAdmin)).not.toContain('other-handled');
    for (const name of ['flow-runs', 'notifications']) await t.deps.engine.rebuild(name);
    expect(await runStatus('main', admin, ids.logFlow, ids.oldRun)).toBe('succeeded');
    const again = await runRetentionEverywhere(t.deps);
    expect(again.get('main')!.counts).toMatchObject({ notifications: 2, flow_runs: 1 });
    expect(again.get('other')!.counts).toMatchObject({ notifications: 1, flow_runs: 1 });
    expect(await runStatus('main', admin, ids.logFlow, ids.oldRun)).toBe(404);
    expect(await runStatus('main', admin, ids.sleepFlow, ids.sleeping)).toBe('sleeping');
  });
});
