import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';
import { apiClient, firstError } from '../../../test/setup/api.ts';
import { createUser } from '../../../test/setup/users.ts';
import { systemMetadata } from '../../../test/support/metadata.ts';
import { runDueFlows } from '../flows/runs/flow-run.worker.ts';
import { notify } from './notifications.commands.ts';
import type { Recipient } from '../../contracts/notifications/notifications.events.ts';
import { NOTIFICATION_PRODUCER } from './notifications.producers.ts';

/** Site main: an admin, two editors and a viewer; site other: its own admin. */
let t: TestApp;
let admin: string;
let editor: string;
let editor2: string;
let viewer: string;
let otherAdmin: string;
let editorId: string;
const { call, ok } = apiClient(
  () => t,
  () => admin,
);
const PASS = 'Long-enough-pass-1!';
const idOf = async (token: string) => (await ok('GET', '/api/v1/auth/me', undefined, { as: token })).id as string;

const raise = (id: string, recipient: Recipient, siteId = 'main', title = `note ${id}`) =>
  notify(t.deps, {
    siteId,
    notificationId: id,
    recipient,
    kind: 'approval',
    severity: 'info',
    title,
    body: 'body',
    deepLink: null,
    entityId: null,
    metadata: systemMetadata(siteId),
  });
const inbox = async (as: string, query = '', site = 'main') => {
  const res = await call('GET', `/api/v1/notifications${query}`, undefined, { as, site });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { data: { id: string; title: string; handled: boolean }[]; meta: { total: number } };
};
const ids = async (as: string, query = '', site = 'main') => (await inbox(as, query, site)).data.map((n) => n.id);

beforeAll(async () => {
  t = await createTestApp();
  admin = await t.setup();
  await ok('POST', '/api/v1/sites', { id: 'other', name: 'Other' });
  editor = await createUser(t, 'ed@example.com', PASS, { main: 'editor' });
  editor2 = await createUser(t, 'ed2@example.com', PASS, { main: 'editor' });
  viewer = await createUser(t, 'viewer@example.com', PASS, { main: 'viewer' });
  otherAdmin = await createUser(t, 'oa@example.com', PASS, { other: 'admin' });
  editorId = await idOf(editor);
  await ok('POST', '/api/v1/collections', { name: 'posts' });
  await ok('POST', '/api/v1/fields/posts', { field: 'title', type: 'string' });
}, 60_000);
afterAll(() => t.close());

describe('notify() and the inbox', () => {
  it('shows a notification to its recipients only: the user, the role, the site admins', async () => {
    await raise('to-editor', { type: 'user', id: editorId });
    await raise('to-editors', { type: 'role', id: 'editor' });
    await raise('to-admins', { type: 'admins' });
    expect(await ids(editor)).toEqual(expect.arrayContaining(['to-editor', 'to-editors']));
    expect(await ids(editor)).not.toContain('to-admins');
    expect(await ids(editor2)).toContain('to-editors');
    expect(await ids(editor2)).not.toContain('to-editor');
    expect(await ids(viewer)).toEqual([]);
    expect(await ids(admin)).toContain('to-admins');
    expect(await ids(admin)).not.toContain('to-editor');
  });

  it("never shows one site's notifications on another, even to that site's admin", async () => {
    await raise('other-admins', { type: 'admins' }, 'other');
    expect(await ids(otherAdmin, '', 'other')).toEqual(['other-admins']);
    expect(await ids(admin)).not.toContain('other-admins');
    const res = await call(
      'PATCH',
      '/api/v1/notifications/to-admins',
      { handled: true },
      { as: otherAdmin, site: 'other' },
    );
    expect(res.statusCode).toBe(404);
    expect(firstError(res.body).code).toBe('NOT_FOUND');
  });

  it('raises an id once, however often a producer sends it', async () => {
    await raise('twice', { type: 'admins' }, 'main', 'first');
    await raise('twice', { type: 'admins' }, 'main', 'second');
    const mine = (await inbox(admin)).data.filter((n) => n.id === 'twice');
    expect(mine).toHaveLength(1);
    expect(mine[0]!.title).toBe('first');
  });

  it('marks handled per user: PATCH, the unhandled filter, and back again', async () => {
    await raise('shared', { type: 'role', id: 'editor' });
    const patched = await ok('PATCH', '/api/v1/notifications/shared', { handled: true }, { as: editor });
    expect(patched).toMatchObject({ id: 'shared', handled: true, handledAt: expect.any(String) });
    expect(await ids(editor, '?unhandled=true')).not.toContain('shared');
    expect(await ids(editor2, '?unhandled=true')).toContain('shared');
    await ok('PATCH', '/api/v1/notifications/shared', { handled: false }, { as: editor });
    expect(await ids(editor, '?unhandled=true')).toContain('shared');
  });

  it("answers 404 for another user's notification, and changes nothing", async () => {
    const res = await call('PATCH', '/api/v1/notifications/to-editor', { handled: true }, { as: editor2 });
    expect(res.statusCode).toBe(404);
    expect((await inbox(editor)).data.find((n) => n.id === 'to-editor')!.handled).toBe(false);
  });

  it('handles every unhandled notification of the caller at once, and only theirs', async () => {
    const before = (await inbox(editor, '?unhandled=true')).meta.total;
    expect(before).toBeGreaterThan(0);
    expect(await ok('POST', '/api/v1/notifications/handle-all', undefined, { as: editor })).toEqual({
      handled: before,
    });
    expect((await inbox(editor, '?unhandled=true')).meta.total).toBe(0);
    expect((await inbox(editor2, '?unhandled=true')).meta.total).toBeGreaterThan(0);
  });

  it('pages newest first with meta { total, limit, offset }', async () => {
    for (let i = 0; i < 5; i++) await raise(`page-${i}`, { type: 'user', id: editorId });
    const first = await inbox(editor, '?limit=2');
    expect(first.data.map((n) => n.id)).toEqual(['page-4', 'page-3']);
    expect(first.meta).toMatchObject({ limit: 2, offset: 0 });
    const next = await inbox(editor, '?limit=2&offset=2');
    expect(next.data.map((n) => n.id)).toEqual(['page-2', 'page-1']);
    expect(next.meta.total).toBe(first.meta.total);
  });

  it('refuses anonymous callers (401), API keys (403) and bad input (400), never a 500', async () => {
    expect((await call('GET', '/api/v1/notifications', undefined, { as: null })).statusCode).toBe(401);
    const key = await ok('POST', '/api/v1/api-keys', { name: 'bot', roleKey: 'editor' });
    const byKey = await call('GET', '/api/v1/notifications', undefined, { as: key.key });
    expect(byKey.statusCode, byKey.body).toBe(403);
    expect(firstError(byKey.body).code).toBe('PERMISSION_DENIED');
    for (const q of [
      '?unhandled=maybe',
      '?limit=0',
      '?limit=201',
      '?offset=-1',
      '?limit=1e308',
      '?offset=9e999',
      '?unhandled=%00',
    ])
      expect((await call('GET', `/api/v1/notifications${q}`)).statusCode, q).toBe(400);
    for (const body of [{}, { handled: 'yes' }, { handled: true, extra: 1 }, '{"handled":true,"__proto__":{"x":1}}']) {
      const res = await call('PATCH', '/api/v1/notifications/to-admins', body, {
        headers: { 'content-type': 'application/json' },
      });
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
    }
    const long = await call('PATCH', `/api/v1/notifications/${'x'.repeat(201)}`, { handled: true });
    expect([400, 414]).toContain(long.statusCode);
    expect((await call('PATCH', '/api/v1/notifications/%00', { handled: true })).statusCode).toBe(400);
  });
});

describe('producers', () => {
  const node = (id: string, operation: string, options: object) => ({ id, operation, options });
  const flow = async (name: string, nodes: object[]) =>
    (
      await ok('POST', '/api/v1/flows', {
        name,
        trigger: 'manual',
        status: 'active',
        runAs: 'editor',
        graph: { nodes, edges: [] },
      })
    ).id as string;

  it('tells the site admins of a failed run (warning), and the admin who started a run by hand of its success', async () => {
    const failing = await flow('Nightly import', [node('boom', 'throw', { message: 'feed down' })]);
    const fine = await flow('Say hi', [node('hi', 'log', { message: 'hi' })]);
    const failed = (await ok('POST', `/api/v1/flows/${failing}/run`, {})).id as string;
    const succeeded = (await ok('POST', `/api/v1/flows/${fine}/run`, {})).id as string;
    const adminId = await idOf(admin);
    await runDueFlows(t.deps);
    await t.deps.drainReactors(NOTIFICATION_PRODUCER);

    const adminView = (await inbox(admin)).data;
    expect(adminView.find((n) => n.id === `run-${failed}`)).toMatchObject({
      kind: 'run',
      severity: 'warning',
      title: '“Nightly import” failed',
      body: 'FLOW_THROW: feed down (step boom)',
      deepLink: `/flows/${failing}/runs/${failed}`,
      entityId: failed,
      recipient: { type: 'admins' },
    });
    expect(adminView.find((n) => n.id === `run-${succeeded}`)).toMatchObject({
      severity: 'info',
      title: '“Say hi” succeeded',
      recipient: { type: 'user', id: adminId },
    });
    expect(await ids(editor)).not.toContain(`run-${failed}`);
    expect(await ids(editor)).not.toContain(`run-${succeeded}`);
    // Handled again (a redelivery after a crash): nothing new.
    const total = (await inbox(admin)).meta.total;
    await t.deps.drainReactors(NOTIFICATION_PRODUCER);
    expect((await inbox(admin)).meta.total).toBe(total);
  });

  it('tells the site admins how a release publish went', async () => {
    await ok('POST', '/api/v1/items/posts', { id: 'rel-1', title: 'x', status: 'draft' });
    const release = await ok('POST', '/api/v1/releases', {
      name: 'Spring launch',
      addItems: [{ collection: 'posts', itemId: 'rel-1', targetStatus: 'published' }],
    });
    await ok('POST', `/api/v1/releases/${release.id}/publish`);
    await t.deps.drainReactors(NOTIFICATION_PRODUCER);
    const note = (await inbox(admin)).data.find((n) => n.id.startsWith(`release-${release.id}-`));
    expect(note).toMatchObject({
      kind: 'run',
      severity: 'info',
      title: '“Spring launch” was published',
      body: '1 published, 0 failed, 0 skipped.',
      deepLink: `/releases/${release.id}`,
    });
    expect(await ids(otherAdmin, '', 'other')).not.toContain(note!.id);
  });

  it('keeps the inbox a read model of the log: rebuilt, it equals what was projected live', async () => {
    const dump = async () => [await inbox(admin, '?limit=200'), await inbox(editor, '?limit=200')];
    const live = await dump();
    await t.deps.engine.rebuild('notifications');
    expect(await dump()).toEqual(live);
  });
});
