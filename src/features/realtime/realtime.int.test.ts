import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';
import { apiClient, firstError } from '../../../test/setup/api.ts';
import { createUser } from '../../../test/setup/users.ts';
import { systemMetadata } from '../../../test/support/metadata.ts';
import { openSse, openWs, type SeenFrame } from '../../../test/support/realtime-client.ts';
import { notify } from '../notifications/index.ts';
import type { Recipient } from '../../contracts/notifications/notifications.events.ts';
import { createSite } from '../sites/index.ts';

/** Site main: an admin, an editor, an author (row and field rules on articles); site other: its own admin. */
let t: TestApp;
let base: string;
let admin: string;
let editor: string;
let author: string;
let otherAdmin: string;
const { call, ok } = apiClient(
  () => t,
  () => admin,
);
const PASS = 'Realtime-pass-1234!';
const SECRET = 'test-secret-test-secret-test-secret-123';

const raise = (id: string, recipient: Recipient, siteId = 'main') =>
  notify(t.deps, {
    siteId,
    notificationId: id,
    recipient,
    kind: 'approval',
    severity: 'warning',
    title: `note ${id}`,
    body: 'body',
    deepLink: '/admin/x',
    entityId: 'e1',
    metadata: systemMetadata(siteId),
  });

const ticket = async (as: string, site = 'main') =>
  (await ok('POST', '/api/v1/realtime/ticket', undefined, { as, site })).ticket as string;
const sse = async (as: string, opts: { site?: string; lastEventId?: string; query?: string } = {}) => {
  const tk = await ticket(as, opts.site);
  const c = await openSse(
    `${base}/api/v1/realtime?ticket=${encodeURIComponent(tk)}${opts.query ?? ''}`,
    opts.lastEventId ? { 'last-event-id': opts.lastEventId } : {},
  );
  expect(c.status, c.body).toBe(200);
  await c.next((f) => f.type === 'ready');
  return c;
};
const ws = async (as: string, query = '') => {
  const c = await openWs(
    `${base.replace('http', 'ws')}/api/v1/realtime/ws?ticket=${encodeURIComponent(await ticket(as))}${query}`,
  );
  expect(c.refused).toBeNull();
  await c.next((f) => f.type === 'ready');
  return c;
};
const isNote = (id: string) => (f: SeenFrame) => f.type === 'notification' && f.data.id === id;
const relay = () => t.deps.realtime.relay.tick();

beforeAll(async () => {
  t = await createTestApp();
  admin = await t.setup();
  await ok('POST', '/api/v1/sites', { id: 'other', name: 'Other' });
  editor = await createUser(t, 'ed@example.com', PASS, { main: 'editor' });
  otherAdmin = await createUser(t, 'oa@example.com', PASS, { other: 'admin' });
  await ok('POST', '/api/v1/collections', { name: 'articles' });
  for (const field of ['title', 'secret', 'topic'])
    await ok('POST', '/api/v1/fields/articles', { field, type: 'string' });
  await ok('POST', '/api/v1/collections', { name: 'articles' }, { site: 'other', as: otherAdmin });
  await ok('POST', '/api/v1/fields/articles', { field: 'title', type: 'string' }, { site: 'other', as: otherAdmin });
  const role = (await ok('POST', '/api/v1/roles', { name: 'Author' })).id;
  const policy = (await ok('POST', '/api/v1/policies', { name: 'Shared only' })).id;
  await ok('POST', `/api/v1/policies/${policy}/permissions`, {
    collection: 'articles',
    action: 'read',
    fields: ['id', 'title', 'topic', 'status'],
    conditions: { topic: { _eq: 'shared' } },
  });
  await ok('POST', `/api/v1/policies/${policy}/attach`, { role });
  author = await createUser(t, 'au@example.com', PASS, { main: role });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const addr = t.app.server.address() as { port: number };
  base = `http://127.0.0.1:${addr.port}`;
}, 60_000);
afterAll(() => t.close());

describe('tickets', () => {
  it('are for signed-in users on their site, single use, one minute, and bound to the site', async () => {
    expect((await call('POST', '/api/v1/realtime/ticket', undefined, { as: null })).statusCode).toBe(401);
    const key = await ok('POST', '/api/v1/api-keys', { name: 'k', roleKey: 'editor' });
    const byKey = await call('POST', '/api/v1/realtime/ticket', undefined, { as: key.key });
    expect(byKey.statusCode, byKey.body).toBe(403);
    const mine = await ok('POST', '/api/v1/realtime/ticket');
    expect(Date.parse(mine.expiresAt) - Date.now()).toBeLessThanOrEqual(60_000);
    expect(mine.sse).toBe(`/api/v1/realtime?ticket=${encodeURIComponent(mine.ticket)}`);

    const first = await openSse(`${base}${mine.sse}`);
    expect(first.status).toBe(200);
    first.close();
    const again = await openSse(`${base}${mine.sse}`);
    expect(again.status).toBe(401);
    expect(firstError(again.body).extensions.reason).toBe('ticket_used');

    const none = await openSse(`${base}/api/v1/realtime`);
    expect([none.status, firstError(none.body).extensions.reason]).toEqual([401, 'ticket_required']);
    const forged = await new SignJWT({ site: 'main', tv: 0 })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('someone')
      .setJti('j1')
      .setAudience('realtime-ticket')
      .setExpirationTime('1m')
      .sign(new TextEncoder().encode('another-secret-another-secret-another'));
    const bad = await openSse(`${base}/api/v1/realtime?ticket=${forged}`);
    expect([bad.status, firstError(bad.body).extensions.reason]).toEqual([401, 'ticket_invalid']);
    const expired = await new SignJWT({ site: 'main', tv: 0 })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('someone')
      .setJti('j2')
      .setAudience('realtime-ticket')
      .setExpirationTime(Math.floor(Date.now() / 1000) - 5)
      .sign(new TextEncoder().encode(SECRET));
    const old = await openSse(`${base}/api/v1/realtime?ticket=${expired}`);
    expect([old.status, firstError(old.body).code]).toEqual([401, 'TOKEN_EXPIRED']);
    // An access token is no ticket (another audience).
    const access = await openSse(`${base}/api/v1/realtime?ticket=${admin}`);
    expect([access.status, firstError(access.body).extensions.reason]).toEqual([401, 'ticket_invalid']);

    const others = await ticket(otherAdmin, 'other');
    const cross = await openSse(`${base}/api/v1/realtime?ticket=${others}`, { 'x-svc-site': 'main' });
    expect([cross.status, firstError(cross.body).code]).toEqual([403, 'PERMISSION_DENIED']);
    const wsUrl = `${base.replace('http', 'ws')}/api/v1/realtime/ws?ticket=${encodeURIComponent(others)}`;
    const crossWs = await openWs(wsUrl, { 'x-svc-site': 'main' });
    expect(crossWs.refused?.status).toBe(403);
    // A refusal leaves the ticket usable; a host name is no site (an EventSource cannot name one in a header).
    const own = await openSse(`${base}/api/v1/realtime?ticket=${others}`, { host: 'cms.example.com' });
    expect(own.status, own.body).toBe(200);
    await own.next((f) => f.type === 'ready');
    own.close();
    expect((await openWs(wsUrl)).refused?.status).toBe(401);
  });

  it('are refused to impersonations, and a plain GET or a HEAD spends none', async () => {
    const member = await createUser(t, 'member@example.com', PASS, { main: 'editor' });
    const memberId = (await ok('GET', '/api/v1/auth/me', undefined, { as: member })).id as string;
    const imp = (await ok('POST', `/api/v1/users/${memberId}/impersonate`)).token as string;
    const res = await call('POST', '/api/v1/realtime/ticket', undefined, { as: imp });
    expect([res.statusCode, firstError(res.body).extensions.reason]).toEqual([403, 'impersonation']);

    const tk = await ticket(admin);
    const plain = await fetch(`${base}/api/v1/realtime/ws?ticket=${tk}`);
    expect([plain.status, firstError(await plain.text()).extensions.reason]).toEqual([400, 'upgrade_required']);
    const head = await fetch(`${base}/api/v1/realtime?ticket=${tk}`, { method: 'HEAD' });
    expect(head.status).not.toBe(200);
    const w = await openWs(`${base.replace('http', 'ws')}/api/v1/realtime/ws?ticket=${tk}`);
    expect(w.refused).toBeNull();
    await w.next((f) => f.type === 'ready');
    w.close();
  });

  it('open at most 20 connections per user and site on a node', async () => {
    const heavy = await createUser(t, 'heavy@example.com', PASS, { main: 'viewer' });
    const open = [];
    for (let i = 0; i < 20; i++) open.push(await sse(heavy));
    const tk = await ticket(heavy);
    const more = await openSse(`${base}/api/v1/realtime?ticket=${tk}`);
    expect([more.status, firstError(more.body).extensions.reason]).toEqual([409, 'connection_limit']);
    open.pop()!.close();
    await new Promise((r) => setTimeout(r, 100));
    const again = await openSse(`${base}/api/v1/realtime?ticket=${tk}`);
    expect(again.status, again.body).toBe(200);
    for (const c of [...open, again]) c.close();
  });

  it('leave nothing behind when the client goes away before it is answered', async () => {
    await new Promise((r) => setTimeout(r, 100));
    const before = t.deps.realtime.hub.connections();
    for (let i = 0; i < 5; i++) {
      const ctrl = new AbortController();
      const p = fetch(`${base}/api/v1/realtime?ticket=${await ticket(admin)}`, { signal: ctrl.signal }).catch(
        () => null,
      );
      ctrl.abort();
      await p;
    }
    await new Promise((r) => setTimeout(r, 300));
    expect(t.deps.realtime.hub.connections()).toBe(before);
  });

  it('refuses a Last-Event-ID or subscription list it cannot use, before the ticket is spent', async () => {
    const tk = await ticket(admin);
    for (const id of ["1' or 1=1", '1:99999999999999999999', '9223372036854775808:1', '-1:2']) {
      const badId = await openSse(`${base}/api/v1/realtime?ticket=${tk}`, { 'last-event-id': id });
      expect([badId.status, firstError(badId.body).code]).toEqual([400, 'VALIDATION_FAILED']);
    }
    for (const subscribe of ['not json', '[{"id":"a"}]', '[{"id":"a","collection":"articles","__proto__":{"x":1}}]']) {
      const res = await openSse(`${base}/api/v1/realtime?ticket=${tk}&subscribe=${encodeURIComponent(subscribe)}`);
      expect([res.status, firstError(res.body).path]).toEqual([400, ['subscribe']]);
    }
    const still = await openSse(`${base}/api/v1/realtime?ticket=${tk}`);
    expect(still.status).toBe(200);
    still.close();
  });
});

describe('notifications over SSE and WebSocket', () => {
  it("reach a preview site's members: the base site's, with their role there", async () => {
    await createSite(
      t.deps,
      { metadata: systemMetadata('main--pr-9') },
      { siteId: 'main--pr-9', name: 'Preview', createdBy: 'git-previewer', now: new Date().toISOString() },
    );
    const e = await sse(editor, { site: 'main--pr-9' });
    const refused = await call('POST', '/api/v1/realtime/ticket', undefined, { as: otherAdmin, site: 'main--pr-9' });
    expect(refused.statusCode).toBe(403);
    await raise('n-preview', { type: 'role', id: 'editor' }, 'main--pr-9');
    await relay();
    expect((await e.next(isNote('n-preview'))).data.title).toBe('note n-preview');
    e.close();
  });

  it('reach their recipients only, on their site only, with the push payload', async () => {
    const a = await sse(admin);
    const e = await sse(editor);
    const w = await ws(admin);
    const o = await sse(otherAdmin, { site: 'other' });
    await raise('n-admins', { type: 'admins' });
    await raise('n-editor', { type: 'role', id: 'editor' });
    await raise('n-other', { type: 'admins' }, 'other');
    await relay();
    const got = await a.next(isNote('n-admins'));
    expect(got.data).toEqual({
      id: 'n-admins',
      kind: 'approval',
      severity: 'warning',
      title: 'note n-admins',
      body: 'body',
      deepLink: '/admin/x',
      entityId: 'e1',
      ts: expect.any(String),
    });
    expect(got.id).toMatch(/^\d+:\d+$/);
    expect((await w.next(isNote('n-admins'))).id).toBe(got.id);
    // The inbox shows the same content.
    const inbox = await ok('GET', '/api/v1/notifications');
    expect(inbox.find((n: { id: string }) => n.id === 'n-admins')).toMatchObject(got.data);
    await e.next(isNote('n-editor'));
    await o.next(isNote('n-other'));
    expect(await a.during(300, isNote('n-other'))).toEqual([]);
    expect(e.frames.filter((f) => f.type === 'notification').map((f) => f.data.id)).toEqual(['n-editor']);
    expect(o.frames.filter((f) => f.type === 'notification').map((f) => f.data.id)).toEqual(['n-other']);
    for (const c of [a, e, w, o]) c.close();
  });

  it('replays exactly the missed frames after Last-Event-ID, then goes live', async () => {
    const a = await sse(admin);
    await raise('r1', { type: 'admins' });
    await relay();
    const r1 = await a.next(isNote('r1'));
    a.close();
    await raise('r2', { type: 'admins' });
    await raise('r-editor', { type: 'role', id: 'editor' });
    await raise('r3', { type: 'admins' });
    await relay();
    const tk = await ticket(admin);
    const b = await openSse(`${base}/api/v1/realtime?ticket=${tk}`, { 'last-event-id': r1.id! });
    const ready = await b.next((f) => f.type === 'ready');
    expect(ready.data.replayed).toBe(2);
    expect(b.frames.filter((f) => f.type === 'notification').map((f) => f.data.id)).toEqual(['r2', 'r3']);
    await raise('r4', { type: 'admins' });
    await relay();
    await b.next(isNote('r4'));
    // The query parameter does the same for a client that cannot set the header.
    const c = await sse(admin, { query: `&lastEventId=${encodeURIComponent(r1.id!)}` });
    expect(c.frames.filter((f) => f.type === 'notification').map((f) => f.data.id)).toEqual(['r2', 'r3', 'r4']);
    b.close();
    c.close();
  });

  it('decides each site’s frames by the user’s standing on that site, in one batch', async () => {
    const dual = await createUser(t, 'dual@example.com', PASS, { main: 'admin', other: 'viewer' });
    const onMain = await sse(dual);
    const onOther = await sse(dual, { site: 'other' });
    // One delivery holding both sites' frames, as a relay batch or a peer's message can.
    const frame = (siteId: string, id: string) => ({
      siteId,
      checkpoint: null,
      type: 'notification',
      data: { recipient: { type: 'admins' }, payload: { id, kind: 'run', severity: 'info', title: id, body: '' } },
    });
    t.deps.realtime.hub.broadcast([frame('main', 'dual-main'), frame('other', 'dual-other')]);
    t.deps.realtime.hub.broadcast([frame('other', 'dual-other-2'), frame('main', 'dual-main-2')]);
    await onMain.next(isNote('dual-main'));
    expect(await onOther.during(300, (f) => f.type === 'notification')).toEqual([]);
    expect(onOther.frames.some((f) => f.type === 'notification')).toBe(false);
    onMain.close();
    onOther.close();
  });

  it('ends the connection when the session behind it is revoked', async () => {
    const session = await createUser(t, 'leaver@example.com', PASS, { main: 'admin' });
    const c = await sse(session);
    await ok('POST', '/api/v1/auth/logout', undefined, { as: session });
    await raise('after-logout', { type: 'admins' });
    await relay();
    const closed = await c.next((f) => f.type === 'closed');
    expect(closed.data.reason).toBe('access_revoked');
    expect(c.frames.some(isNote('after-logout'))).toBe(false);
  });

  it('gets the test push of POST /push/test, counted in its summary', async () => {
    const a = await sse(admin);
    const res = await ok('POST', '/api/v1/push/test');
    expect(res.realtime).toEqual({ available: true, delivered: 1 });
    const f = await a.next((x) => x.type === 'notification' && x.data.title === 'Test notification');
    expect(f.id).toBeNull();
    expect((await ok('GET', '/api/v1/push/status')).realtimeAvailable).toBe(true);
    a.close();
  });
});

describe('live item subscriptions', () => {
  const subscribe = (s: object) => `&subscribe=${encodeURIComponent(JSON.stringify([s]))}`;

  it('send only the rows and fields the subscriber may read, and say when an item leaves them', async () => {
    const w = await ws(author);
    w.send({ type: 'subscribe', id: 's1', collection: 'articles', query: { fields: ['*'] } });
    await w.next((f) => f.type === 'subscribed' && f.data.id === 's1');
    const adminWs = await ws(admin);
    adminWs.send({ type: 'subscribe', id: 'all', collection: 'articles', events: ['create'] });
    await adminWs.next((f) => f.type === 'subscribed');
    await ok('POST', '/api/v1/items/articles', { id: 'hidden', title: 'H', secret: 'S', topic: 'private' });
    await ok('POST', '/api/v1/items/articles', { id: 'shared', title: 'T', secret: 'S', topic: 'shared' });
    await relay();
    const created = await w.next((f) => f.type === 'item');
    expect(created.data).toMatchObject({ subscription: 's1', event: 'create', collection: 'articles', id: 'shared' });
    expect(created.data.item).toMatchObject({ id: 'shared', title: 'T', topic: 'shared' });
    expect(created.data.item.secret).toBeUndefined();
    expect(created.id).toMatch(/^\d+:\d+$/);
    const adminFrames = [await adminWs.next((f) => f.type === 'item'), await adminWs.next((f) => f.type === 'item')];
    expect(adminFrames.map((f) => [f.data.id, f.data.item.secret])).toEqual([
      ['hidden', 'S'],
      ['shared', 'S'],
    ]);

    await ok('PATCH', '/api/v1/items/articles/shared', { title: 'T2' });
    await ok('PATCH', '/api/v1/items/articles/hidden', { title: 'H2' });
    await relay();
    expect((await w.next((f) => f.type === 'item')).data).toMatchObject({
      event: 'update',
      id: 'shared',
      item: { title: 'T2' },
    });
    // Moved out of the author's rows: they hear that it left, not what it is now.
    await ok('PATCH', '/api/v1/items/articles/shared', { topic: 'private' });
    await relay();
    expect((await w.next((f) => f.type === 'item')).data).toMatchObject({ event: 'leave', id: 'shared', item: null });
    await ok('DELETE', '/api/v1/items/articles/hidden');
    await relay();
    expect(await w.during(300, (f) => f.type === 'item')).toEqual([]);
    // The admin subscribed to creations only.
    expect(await adminWs.during(100, (f) => f.type === 'item')).toEqual([]);
    w.close();
    adminWs.close();
  });

  it('follow the subscriber’s rights as they change, frame by frame', async () => {
    const role = (await ok('POST', '/api/v1/roles', { name: 'Changing' })).id;
    const policy = (await ok('POST', '/api/v1/policies', { name: 'Changing' })).id;
    const rule = (fields: string[]) =>
      ok('POST', `/api/v1/policies/${policy}/permissions`, { collection: 'articles', action: 'read', fields });
    let permission = (await rule(['id', 'title', 'topic'])).id;
    await ok('POST', `/api/v1/policies/${policy}/attach`, { role });
    const user = await createUser(t, 'changing@example.com', PASS, { main: role });
    const w = await ws(user);
    w.send({ type: 'subscribe', id: 'c', collection: 'articles', query: { fields: ['*'] } });
    await w.next((f) => f.type === 'subscribed');
    await ok('POST', '/api/v1/items/articles', { id: 'ch1', title: 'one', topic: 'x', secret: 's' });
    await relay();
    const first = (await w.next((f) => f.type === 'item')).data.item;
    expect(first).toMatchObject({ id: 'ch1', title: 'one', topic: 'x' });
    expect(first.secret).toBeUndefined();
    await ok('DELETE', `/api/v1/policies/${policy}/permissions/${permission}`);
    permission = (await rule(['id', 'topic'])).id;
    await ok('PATCH', '/api/v1/items/articles/ch1', { topic: 'y' });
    await relay();
    // As GET /items/articles/ch1 answers it now: no title any more.
    const second = (await w.next((f) => f.type === 'item')).data.item;
    expect(second).toMatchObject({ id: 'ch1', topic: 'y' });
    expect(second.title).toBeUndefined();
    const rest = await call('GET', '/api/v1/items/articles/ch1', undefined, { as: user });
    expect(Object.keys(second).sort()).toEqual(Object.keys(rest.json().data).sort());
    await ok('POST', `/api/v1/policies/${policy}/detach`, { role });
    await ok('PATCH', '/api/v1/items/articles/ch1', { topic: 'z' });
    await relay();
    expect((await w.next((f) => f.type === 'error')).data).toMatchObject({
      subscription: 'c',
      code: 'PERMISSION_DENIED',
    });
    expect(w.frames.filter((f) => f.type === 'item')).toHaveLength(2);
    w.close();
  });

  it('apply the subscription filter and send deletions of rows the subscriber could read', async () => {
    const c = await sse(editor, {
      query: subscribe({
        id: 'news',
        collection: 'articles',
        query: { filter: { topic: { _eq: 'news' } }, fields: ['title'] },
      }),
    });
    await ok('POST', '/api/v1/items/articles', [
      { id: 'n1', title: 'News', topic: 'news' },
      { id: 'x1', title: 'Other', topic: 'misc' },
    ]);
    // Each change is decided as the rows are when the relay reads them: the creation is relayed before the
    // deletion, or a row already gone would never have been seen.
    await relay();
    await ok('DELETE', '/api/v1/items/articles/x1');
    await ok('DELETE', '/api/v1/items/articles/n1');
    await relay();
    const a = await c.next((f) => f.type === 'item');
    expect(a.data).toEqual({
      subscription: 'news',
      event: 'create',
      collection: 'articles',
      id: 'n1',
      item: { id: 'n1', title: 'News' },
    });
    const d = await c.next((f) => f.type === 'item');
    expect(d.data).toMatchObject({ event: 'delete', id: 'n1', item: null });
    expect(c.frames.filter((f) => f.type === 'item')).toHaveLength(2);
    c.close();
  });

  it('replays item changes after Last-Event-ID for the subscriptions given at connection', async () => {
    const q = subscribe({ id: 'r', collection: 'articles', query: { fields: ['title'] } });
    const c = await sse(editor, { query: q });
    await ok('POST', '/api/v1/items/articles', { id: 'rp1', title: 'one' });
    await relay();
    const first = await c.next((f) => f.type === 'item');
    c.close();
    await ok('POST', '/api/v1/items/articles', { id: 'rp2', title: 'two' });
    await ok('POST', '/api/v1/items/articles', { id: 'rp3', title: 'three' }, { site: 'other', as: otherAdmin });
    await relay();
    const again = await sse(editor, { query: q, lastEventId: first.id! });
    expect(again.frames.filter((f) => f.type === 'item').map((f) => f.data.id)).toEqual(['rp2']);
    again.close();
  });

  it('refuse a subscription the caller cannot read, with a precise error, and hostile messages', async () => {
    const w = await ws(author);
    w.send({ type: 'subscribe', id: 'x', collection: 'nope' });
    expect((await w.next((f) => f.type === 'error')).data).toMatchObject({ subscription: 'x' });
    w.send({ type: 'subscribe', id: 'y', collection: 'articles', query: { filter: { secret: { _eq: 'S' } } } });
    expect((await w.next((f) => f.type === 'error')).data).toMatchObject({
      subscription: 'y',
      code: 'PERMISSION_DENIED',
    });
    w.send('{"type":"subscribe","id":"z","collection":"articles","query":{"filter":{"__proto__":{"a":1}}}}');
    expect((await w.next((f) => f.type === 'error')).data.code).toBe('VALIDATION_FAILED');
    w.send('not json');
    expect((await w.next((f) => f.type === 'error')).data.code).toBe('VALIDATION_FAILED');
    w.send({ type: 'unsubscribe', id: 'never' });
    expect((await w.next((f) => f.type === 'error')).data.code).toBe('NOT_FOUND');
    w.send({ type: 'ping' });
    await w.next((f) => f.type === 'pong');
    w.close();
  });
});
