import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';
import { apiClient, firstError } from '../../../test/setup/api.ts';
import { createUser } from '../../../test/setup/users.ts';
import { sendGithubDelivery } from '../../../test/support/git-deliveries.ts';
import type { StoredEvent } from '../../kernel/es/event.ts';
import { readAsSite } from '../../kernel/tenancy/site.ts';
import { gitDeliveryStream } from '../../contracts/git/git.events.ts';
import { GIT_DELIVERY_PROCESSOR, GIT_INCIDENT_REPORTER, gitDeliveryProcessor } from './git.reactor.ts';

/** Site main: its admin and an editor; site other: its own admin and integration. */
let t: TestApp;
let admin: string;
let editor: string;
let otherAdmin: string;
const { call, ok } = apiClient(
  () => t,
  () => admin,
);
const PASS = 'Git-activity-pass-1!';
const SECRET = 'a-webhook-secret-of-forty-characters-long';
const BASE = '/api/v1/integrations/git';
const SHA = 'a'.repeat(40);
const SHA2 = 'b'.repeat(40);

let hub: { id: string; url: string };
let lab: { id: string; url: string };
let otherHub: { id: string; url: string };

const integrate = async (provider: 'github' | 'gitlab', site = 'main', as = admin) => {
  const r = await ok(
    'POST',
    BASE,
    { provider, repository: 'acme/site', authMethod: 'pat', webhookSecret: SECRET, sync_config: { branch: 'main' } },
    { site, as },
  );
  return { id: r.id as string, url: new URL(r.webhookUrl as string).pathname };
};

beforeAll(async () => {
  t = await createTestApp();
  admin = await t.setup();
  await ok('POST', '/api/v1/sites', { id: 'other', name: 'Other' });
  editor = await createUser(t, 'ed@example.com', PASS, { main: 'editor' });
  otherAdmin = await createUser(t, 'oa@example.com', PASS, { other: 'admin' });
  hub = await integrate('github');
  lab = await integrate('gitlab');
  otherHub = await integrate('github', 'other', otherAdmin);
}, 60_000);
afterAll(() => t.close());

/** Sends a signed GitHub delivery; the event header is whatever the caller says (it is not signed). */
async function github(path: string, payload: object, event = 'pull_request') {
  const res = await sendGithubDelivery(t, path, payload, { secret: SECRET, event });
  expect(res.statusCode, res.body).toBe(200);
}

async function gitlab(path: string, payload: object) {
  const res = await t.call({
    method: 'POST',
    url: path,
    payload,
    headers: { 'x-gitlab-token': SECRET, 'x-gitlab-event': 'System Hook', 'x-gitlab-event-uuid': randomUUID() },
  });
  expect(res.statusCode, res.body).toBe(200);
}

const processAll = async () => {
  await t.deps.drainReactors(GIT_DELIVERY_PROCESSOR);
  await t.deps.drainReactors(GIT_INCIDENT_REPORTER);
};

const pullRequest = (number: number, over: { action?: string; state?: string; merged?: boolean; at: string }) => ({
  action: over.action ?? 'opened',
  number,
  pull_request: {
    title: `Change ${String(number)}`,
    state: over.state ?? 'open',
    merged: over.merged ?? false,
    html_url: `https://github.com/acme/site/pull/${String(number)}`,
    updated_at: over.at,
    head: { ref: `feature-${String(number)}`, sha: SHA },
    base: { ref: 'main' },
    user: { login: 'someone' },
  },
  sender: { login: 'someone', email: 'someone@example.com' },
});

const checkRun = (id: number, branch: string, conclusion: string | null, at: string) => ({
  action: conclusion ? 'completed' : 'created',
  check_run: {
    id,
    name: 'build',
    head_sha: SHA2,
    status: conclusion ? 'completed' : 'in_progress',
    conclusion,
    html_url: `https://github.com/acme/site/runs/${String(id)}`,
    started_at: '2026-11-01T10:00:00Z',
    completed_at: conclusion ? at : null,
    check_suite: { head_branch: branch },
  },
});

type Listed<T> = { data: T[]; meta: { total: number } };
const list = async <T = Record<string, unknown>>(path: string, as = admin, site = 'main') => {
  const res = await call('GET', path, undefined, { as, site });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as Listed<T>;
};
const incidents = async (as = admin, site = 'main') =>
  (
    await list<{ kind: string; severity: string; title: string; body: string; entityId: string }>(
      '/api/v1/notifications?limit=100',
      as,
      site,
    )
  ).data.filter((n) => n.kind === 'incident');

describe('processing deliveries', () => {
  it('follows a pull request through its deliveries, whatever order they arrive in', async () => {
    await github(hub.url, pullRequest(7, { at: '2026-11-01T10:00:00Z' }));
    await processAll();
    const opened = await list(`${BASE}/pull-requests?integrationId=${hub.id}`);
    expect(opened.data).toEqual([
      {
        integrationId: hub.id,
        number: 7,
        title: 'Change 7',
        state: 'open',
        action: 'opened',
        headRef: 'feature-7',
        headSha: SHA,
        baseRef: 'main',
        url: 'https://github.com/acme/site/pull/7',
        updatedAt: '2026-11-01T10:00:00.000Z',
      },
    ]);
    // The merge, then a late `synchronize` from before it: the pull request stays merged.
    await github(
      hub.url,
      pullRequest(7, { action: 'closed', state: 'closed', merged: true, at: '2026-11-01T12:00:00Z' }),
    );
    await github(hub.url, pullRequest(7, { action: 'synchronize', at: '2026-11-01T11:00:00Z' }));
    await processAll();
    const merged = await list<{ state: string; action: string }>(`${BASE}/pull-requests?state=merged`);
    expect(merged.data).toMatchObject([{ number: 7, state: 'merged', action: 'closed' }]);
    expect((await list(`${BASE}/pull-requests?state=open`)).meta.total).toBe(0);
    // Nothing about the people in the payload is kept in what the API shows.
    expect(JSON.stringify(merged)).not.toContain('someone');
  });

  it('takes the kind of a delivery from its signed payload, not from the unsigned event header', async () => {
    await github(hub.url, pullRequest(8, { at: '2026-11-02T10:00:00Z' }), 'check_run');
    await github(hub.url, { zen: 'Keep it logically awesome.', hook_id: 1 }, 'pull_request');
    await github(hub.url, { action: 'opened', number: 'nine', pull_request: { title: 42 } }, 'pull_request');
    await processAll();
    const numbers = (await list<{ number: number }>(`${BASE}/pull-requests`)).data.map((p) => p.number);
    expect(numbers.sort()).toEqual([7, 8]);
    expect((await list(`${BASE}/ci`)).meta.total).toBe(0);
  });
});

describe('processing deliveries', () => {
  it('records CI runs, and a failure on the integration branch as a critical incident for the admins', async () => {
    await github(hub.url, checkRun(101, 'main', null, ''));
    await processAll();
    expect((await list(`${BASE}/ci?state=running`)).data).toMatchObject([
      { integrationId: hub.id, source: 'check_run', runId: '101', name: 'build', sha: SHA2, ref: 'main' },
    ]);
    await github(hub.url, checkRun(101, 'main', 'failure', '2026-11-01T10:05:00Z'));
    await github(hub.url, checkRun(102, 'feature-7', 'timed_out', '2026-11-01T10:06:00Z'));
    await github(hub.url, checkRun(103, 'main', 'success', '2026-11-01T10:07:00Z'));
    await processAll();
    const failed = await list<{ runId: string }>(`${BASE}/ci?state=failure`);
    expect(failed.data.map((r) => r.runId).sort()).toEqual(['101', '102']);
    expect((await list(`${BASE}/ci?state=success&sha=${SHA2}&ref=main`)).data).toMatchObject([{ runId: '103' }]);

    // The audit log holds git_ci_failed for each failure, and each raised one incident.
    const audit = await list<{ type: string; data: { runId: string; severity: string } }>(
      '/api/v1/audit?type=git_ci_failed',
    );
    expect(audit.data.map((e) => [e.data.runId, e.data.severity]).sort()).toEqual([
      ['101', 'critical'],
      ['102', 'warning'],
    ]);
    const raised = await incidents();
    expect(raised.map((n) => n.severity).sort()).toEqual(['critical', 'warning']);
    // Another delivery about the run, still failed (a new body, so a new delivery): no second incident.
    await github(hub.url, { ...checkRun(101, 'main', 'failure', '2026-11-01T10:08:00Z'), action: 'requested_action' });
    await processAll();
    expect((await incidents()).length).toBe(2);
    expect(raised.find((n) => n.severity === 'critical')).toMatchObject({
      title: 'CI failed: build',
      body: `acme/site: build failed on main (${SHA2.slice(0, 12)}).`,
      entityId: hub.id,
    });
    // The editor is not a recipient, and the other site's admin hears nothing.
    expect(await incidents(editor)).toEqual([]);
    expect(await incidents(otherAdmin, 'other')).toEqual([]);
  });

  it('handles a delivery again (at least once) without recording anything twice', async () => {
    await github(hub.url, checkRun(201, 'main', 'failure', '2026-11-03T10:00:00Z'));
    await processAll();
    const before = (await incidents()).length;
    const runs = await list(`${BASE}/ci`);
    const auditBefore = (await list('/api/v1/audit?type=git_ci_failed')).data.length;
    // The processor is handed every recorded delivery again, as after a crash before its checkpoint moved.
    const processor = gitDeliveryProcessor(t.deps);
    const recorded = await deliveriesOf(hub.id);
    expect(recorded.length).toBeGreaterThan(5);
    for (const e of recorded) await processor.handle(e);
    await processAll();
    expect((await list('/api/v1/audit?type=git_ci_failed')).data.length).toBe(auditBefore);
    expect((await incidents()).length).toBe(before);
    expect((await list(`${BASE}/ci`)).data).toEqual(runs.data);
  });
});

describe('processing deliveries', () => {
  it('reads GitLab merge requests and pipelines', async () => {
    const mr = (state: string, action: string, updated: string) => ({
      object_kind: 'merge_request',
      user: { username: 'someone', email: 'someone@example.com' },
      object_attributes: {
        iid: 3,
        title: 'Docs',
        state,
        action,
        source_branch: 'docs',
        target_branch: 'main',
        last_commit: { id: SHA },
        url: 'https://gitlab.example.com/acme/site/-/merge_requests/3',
        updated_at: updated,
      },
    });
    await gitlab(lab.url, mr('opened', 'open', '2026-11-04 10:00:00 UTC'));
    await gitlab(lab.url, {
      object_kind: 'pipeline',
      object_attributes: { id: 55, ref: 'docs', sha: SHA, status: 'failed', finished_at: '2026-11-04 10:02:00 UTC' },
    });
    await processAll();
    expect((await list(`${BASE}/pull-requests?integrationId=${lab.id}`)).data).toMatchObject([
      { number: 3, state: 'open', headRef: 'docs', baseRef: 'main', updatedAt: '2026-11-04T10:00:00.000Z' },
    ]);
    expect((await list(`${BASE}/ci?integrationId=${lab.id}`)).data).toMatchObject([
      { source: 'pipeline', runId: '55', name: 'pipeline 55', ref: 'docs', state: 'failure' },
    ]);
    expect((await incidents()).some((n) => n.body.includes('pipeline 55 failed on docs'))).toBe(true);
  });

  it('keeps every site to its own pull requests and runs, for admins only', async () => {
    await github(otherHub.url, pullRequest(99, { at: '2026-11-05T10:00:00Z' }));
    await processAll();
    const theirs = await list<{ number: number; integrationId: string }>(`${BASE}/pull-requests`, otherAdmin, 'other');
    expect(theirs.data.map((p) => p.number)).toEqual([99]);
    const ours = await list<{ number: number }>(`${BASE}/pull-requests?limit=200`);
    expect(ours.data.map((p) => p.number)).not.toContain(99);
    // Naming the other site's integration finds nothing.
    expect((await list(`${BASE}/pull-requests?integrationId=${otherHub.id}`)).meta.total).toBe(0);
    expect((await list(`${BASE}/ci`, otherAdmin, 'other')).meta.total).toBe(0);
    // Another site's admin asking on this site, an editor, and anyone anonymous are refused.
    for (const path of [`${BASE}/pull-requests`, `${BASE}/ci`]) {
      expect((await call('GET', path, undefined, { as: otherAdmin })).statusCode).toBe(403);
      expect((await call('GET', path, undefined, { as: editor })).statusCode).toBe(403);
      expect((await call('GET', path, undefined, { as: null })).statusCode).toBe(401);
    }
  });

  it('answers bad filters with a precise 400', async () => {
    for (const q of ['state=broken', 'sha=zz', 'integrationId=..%2F', 'limit=1e308', 'ref=']) {
      const res = await call('GET', `${BASE}/ci?${q}`);
      expect(res.statusCode, q).toBe(400);
      expect(firstError(res.body).code).toBe('VALIDATION_FAILED');
    }
    const res = await call('GET', `${BASE}/pull-requests?state=draft`);
    expect(res.statusCode).toBe(400);
  });

  it('forgets an integration’s pull requests and runs when it is deleted', async () => {
    const gone = await integrate('github');
    await github(gone.url, pullRequest(12, { at: '2026-11-06T10:00:00Z' }));
    await github(gone.url, checkRun(301, 'main', 'failure', '2026-11-06T10:01:00Z'));
    await processAll();
    expect((await list(`${BASE}/pull-requests?integrationId=${gone.id}`)).meta.total).toBe(1);
    const recorded = await deliveriesOf(gone.id);
    expect(recorded).toHaveLength(2);
    await ok('DELETE', `${BASE}/${gone.id}`);
    expect((await list(`${BASE}/pull-requests?integrationId=${gone.id}`)).meta.total).toBe(0);
    expect((await list(`${BASE}/ci?integrationId=${gone.id}`)).meta.total).toBe(0);
    // Its deliveries, handled again after the deletion, can no longer be read, so they record nothing.
    const processor = gitDeliveryProcessor(t.deps);
    for (const e of recorded) await processor.handle(e);
    expect((await list(`${BASE}/pull-requests?integrationId=${gone.id}`)).meta.total).toBe(0);
  });
});

/** The integration's recorded deliveries, read from their own streams (the keys from the read model's listing). */
async function deliveriesOf(integrationId: string): Promise<StoredEvent[]> {
  const rows = await readAsSite(t.deps.db, 'main', (db) =>
    db
      .selectFrom('git_deliveries')
      .select('delivery_key')
      .where('site_id', '=', 'main')
      .where('integration_id', '=', integrationId)
      .execute(),
  );
  const events: StoredEvent[] = [];
  for (const r of rows) {
    for await (const e of t.deps.store.readStream(gitDeliveryStream('main', integrationId, r.delivery_key)))
      events.push(e);
  }
  return events;
}

describe('hostile input on the git routes', () => {
  it('answers NUL bytes, prototype keys, huge numbers and deep nesting with a 4xx envelope, never a 5xx', async () => {
    const deep = JSON.parse(`${'{"a":'.repeat(200)}1${'}'.repeat(200)}`) as object;
    const cases: [string, string, unknown][] = [
      ['GET', `${BASE}/pull-requests?state=%00`, undefined],
      ['GET', `${BASE}/pull-requests?__proto__[x]=1`, undefined],
      ['GET', `${BASE}/ci?sha=${'a'.repeat(5000)}`, undefined],
      ['GET', `${BASE}/ci?limit=1e308`, undefined],
      ['GET', `${BASE}/provenance?offset=99999999999999999999`, undefined],
      ['GET', `${BASE}/provenance?constructor[prototype]=x`, undefined],
      ['GET', `${BASE}/previews?state=live%00`, undefined],
      ['GET', `${BASE}/previews?integrationId=%00`, undefined],
      ['POST', `${BASE}/${hub.id}/gitops/sync`, { dryRun: true, __proto__: { polluted: 1 } }],
      ['POST', `${BASE}/${hub.id}/gitops/sync`, JSON.parse('{"constructor":{"prototype":{"x":1}}}')],
      ['POST', `${BASE}/${hub.id}/gitops/sync`, { dryRun: 1e308 }],
      ['POST', `${BASE}/${hub.id}/gitops/sync`, deep],
      ['POST', `${BASE}/%00/gitops/sync`, {}],
      ['GET', `${BASE}/${hub.id}/oauth/authorize?x=%00`, undefined],
      ['GET', `${BASE}/oauth/callback?state=%00&code=x`, undefined],
      ['GET', `${BASE}/oauth/callback?state=x&code=${'c'.repeat(5000)}`, undefined],
      ['GET', `${BASE}/oauth/callback?__proto__[state]=x`, undefined],
    ];
    for (const [method, url, body] of cases)
      for (const as of [admin, null]) {
        const res = await call(method as 'GET' | 'POST', url, body, { as });
        expect(res.statusCode, `${method} ${url}`).toBeGreaterThanOrEqual(400);
        expect(res.statusCode, `${method} ${url}`).toBeLessThan(500);
        expect(res.json().errors[0].code, `${method} ${url}`).toMatch(/^[A-Z_]+$/);
      }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('limits the receiver per address (SVC_GIT_WEBHOOK_PER_MINUTE), before any signature is checked', async () => {
    const limited = await createTestApp({ env: { SVC_GIT_WEBHOOK_PER_MINUTE: '3' } });
    try {
      const statuses = [];
      for (let i = 0; i < 5; i++)
        statuses.push((await sendGithubDelivery(limited, hub.url, { zen: i }, { secret: 'wrong' })).statusCode);
      expect(statuses).toEqual([401, 401, 401, 429, 429]);
      const last = await sendGithubDelivery(limited, hub.url, {}, { secret: 'wrong' });
      expect(firstError(last.body).code).toBe('RATE_LIMITED');
    } finally {
      await limited.close();
    }
  });
});
