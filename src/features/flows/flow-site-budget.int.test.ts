import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../kernel/clock.ts';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';
import { runDueFlows } from './runs/flow-run.worker.ts';
import { tickSchedules } from './runs/flow-schedule.ts';
import { FLOW_EVENT_TRIGGER } from './runs/flow-event.reactor.ts';

const clock = new ManualClock(new Date('2026-04-02T08:00:00Z'));
let t: TestApp;
let admin: string;

beforeAll(async () => {
  t = await createTestApp({ clock });
  admin = await t.setup();
  expect((await call('POST', '/api/v1/sites', { id: 'other', name: 'Other' })).statusCode).toBe(201);
});
afterAll(() => t.close());

type Method = 'GET' | 'POST' | 'PATCH';
const call = (method: Method, url: string, payload?: unknown, site = 'main') =>
  t.call({ method, url, as: admin, site, ...(payload === undefined ? {} : { payload: payload as object }) });
const node = (id: string, operation: string, options: object) => ({ id, operation, options });
const logGraph = () => ({ nodes: [node('a', 'log', { message: 'x' })], edges: [] });
/** Saves an active flow. */
async function flowOf(body: object, graph: () => object, site = 'main'): Promise<string> {
  const res = await call('POST', '/api/v1/flows', { name: 'f', runAs: 'admin', ...body }, site);
  expect(res.statusCode, res.body).toBe(201);
  const id = res.json().data.id as string;
  const saved = await call('PATCH', `/api/v1/flows/${id}`, { status: 'active', graph: graph() }, site);
  expect(saved.statusCode, saved.body).toBe(200);
  return id;
}
const tokenOf = async (flowId: string, site = 'main') => {
  const res = await call('POST', `/api/v1/flows/${flowId}/token`, undefined, site);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data.token as string;
};
/** A webhook call as an outside caller makes it (no session). */
const trigger = (flowId: string, token: string, headers: Record<string, string> = {}, site = 'main') =>
  t.app.inject({
    method: 'POST',
    url: `/api/v1/flows/${flowId}/trigger`,
    headers: { 'x-flow-token': token, 'x-svc-site': site, ...headers },
    payload: {},
  });
type Run = { status: string; steps: unknown[]; error: { code: string; extensions?: object } | null };
const runsOf = async (flowId: string, site = 'main'): Promise<Run[]> => {
  const res = await call('GET', `/api/v1/flows/${flowId}/runs?limit=200`, undefined, site);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data as Run[];
};
/** Rounds of the worker and the event trigger until nothing is due; bounded. */
async function settle(rounds = 6) {
  for (let i = 0; i < rounds; i++) {
    await t.deps.drainReactors(FLOW_EVENT_TRIGGER);
    if ((await runDueFlows(t.deps)) === 0) return;
  }
}

describe('the root runs of a site have a budget of their own', () => {
  it('refuses roots past the live runs of a site (429 or a refused run), and another site still starts', async () => {
    await t.restart({ SVC_FLOW_SITE_LIVE_RUNS: '2' });
    // A site of its own, so no run of the earlier tests counts.
    expect((await call('POST', '/api/v1/sites', { id: 'capped', name: 'Capped' })).statusCode).toBe(201);
    await call('POST', '/api/v1/collections', { name: 'posts' }, 'capped');
    const manual = await flowOf({ trigger: 'manual' }, logGraph, 'capped');
    const hook = await flowOf({ trigger: 'webhook' }, logGraph, 'capped');
    const hookToken = await tokenOf(hook, 'capped');
    const event = await flowOf(
      { trigger: 'event', triggerOptions: { events: ['items.create'], collections: ['posts'] } },
      logGraph,
      'capped',
    );
    clock.set('2026-04-02T08:00:30Z');
    const schedule = await flowOf({ trigger: 'schedule', triggerOptions: { cron: '* * * * *' } }, logGraph, 'capped');
    // Two runs not yet advanced: the site's live runs are at their cap.
    for (let i = 0; i < 2; i++)
      expect((await call('POST', `/api/v1/flows/${manual}/run`, {}, 'capped')).statusCode).toBe(202);
    const refusedManual = await call('POST', `/api/v1/flows/${manual}/run`, {}, 'capped');
    expect(refusedManual.statusCode, refusedManual.body).toBe(429);
    expect(refusedManual.headers['retry-after']).toBeDefined();
    expect(refusedManual.json().errors[0]).toMatchObject({
      code: 'RATE_LIMITED',
      extensions: { budget: 'site_live_runs', limit: 2 },
    });
    const refusedHook = await trigger(hook, hookToken, {}, 'capped');
    expect(refusedHook.statusCode, refusedHook.body).toBe(429);
    expect(refusedHook.headers['retry-after']).toBeDefined();
    // An event's root and a schedule's root are recorded as refused runs that say why.
    expect((await call('POST', '/api/v1/items/posts', { id: 'x' }, 'capped')).statusCode).toBe(201);
    await t.deps.drainReactors(FLOW_EVENT_TRIGGER);
    clock.advance(60_000);
    await tickSchedules(t.deps);
    for (const flowId of [event, schedule]) {
      const [r] = await runsOf(flowId, 'capped');
      expect(r).toMatchObject({
        status: 'failed',
        steps: [],
        error: { code: 'BUDGET_EXCEEDED', extensions: { budget: 'site_live_runs', limit: 2 } },
      });
    }
    // Another site is not held by this one's runs.
    const elsewhere = await flowOf({ trigger: 'manual' }, logGraph, 'other');
    expect((await call('POST', `/api/v1/flows/${elsewhere}/run`, {}, 'other')).statusCode).toBe(202);
    // Once the live runs ended, the site starts roots again.
    await settle();
    expect((await call('POST', `/api/v1/flows/${manual}/run`, {}, 'capped')).statusCode).toBe(202);
    expect((await trigger(hook, hookToken, {}, 'capped')).statusCode).toBe(202);
    await settle();
    for (const flowId of [event, schedule])
      await call('PATCH', `/api/v1/flows/${flowId}`, { status: 'inactive' }, 'capped');
  }, 120_000);

  it('refuses root starts past the rate of a site with 429 and Retry-After; another site still starts', async () => {
    await t.restart({ SVC_FLOW_SITE_ROOTS_PER_MINUTE: '3' });
    // Sites of their own: with Redis the counts of the earlier tests' starts are kept across the restart.
    for (const id of ['busy', 'calm'])
      expect((await call('POST', '/api/v1/sites', { id, name: id })).statusCode).toBe(201);
    const manual = await flowOf({ trigger: 'manual' }, logGraph, 'busy');
    const hook = await flowOf({ trigger: 'webhook' }, logGraph, 'busy');
    const hookToken = await tokenOf(hook, 'busy');
    for (let i = 0; i < 2; i++)
      expect((await call('POST', `/api/v1/flows/${manual}/run`, {}, 'busy')).statusCode).toBe(202);
    expect((await trigger(hook, hookToken, {}, 'busy')).statusCode).toBe(202);
    await settle();
    const refused = await call('POST', `/api/v1/flows/${manual}/run`, {}, 'busy');
    expect(refused.statusCode, refused.body).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.json().errors[0]).toMatchObject({
      code: 'RATE_LIMITED',
      extensions: { budget: 'site_root_rate', limit: 3 },
    });
    expect((await trigger(hook, hookToken, {}, 'busy')).statusCode).toBe(429);
    const elsewhere = await flowOf({ trigger: 'manual' }, logGraph, 'calm');
    expect((await call('POST', `/api/v1/flows/${elsewhere}/run`, {}, 'calm')).statusCode).toBe(202);
    await settle();
  }, 120_000);
});
