import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../kernel/clock.ts';
import { collect } from '../../kernel/es/event-store.ts';
import { handleCommand } from '../../kernel/es/handle-command.ts';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';
import { createUser } from '../../../test/setup/users.ts';
import { userDecider } from '../auth/user.decider.ts';
import { userStream } from '../../contracts/auth/user.events.ts';
import { sweepDueReleases } from './index.ts';
import { releaseStream } from '../../contracts/releases/release.events.ts';

let t: TestApp;
let admin: string;
const clock = new ManualClock(new Date('2026-06-01T08:00:00Z'));
const PASSWORD = 'Writer-pass-1234!';
type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';
const call = (method: Method, url: string, payload?: unknown, as = admin, site = 'main') =>
  t.call({ method, url, payload: payload as object, as, site });
const ok = async (method: Method, url: string, payload?: unknown, as = admin) => {
  const res = await call(method, url, payload, as);
  expect(res.statusCode, res.body).toBeLessThan(300);
  return res.json().data;
};
const status = async (id: string) => (await call('GET', `/api/v1/items/posts/${id}`)).json().data.status;
const item = (itemId: string) => ({ collection: 'posts', itemId, targetStatus: 'published' });

/** Rules of a writer: read and create posts, update only their own posts not titled "locked", title and status. */
const OWN_POSTS = [
  { collection: 'posts', action: 'read', fields: ['*'] },
  { collection: 'posts', action: 'create', fields: ['*'] },
  {
    collection: 'posts',
    action: 'update',
    fields: ['title', 'status'],
    conditions: { created_by: { _eq: '$CURRENT_USER' }, title: { _neq: 'locked' } },
  },
];
/** Rules that update titles of every post but never the status. */
const TITLES_ONLY = [
  { collection: 'posts', action: 'read', fields: ['*'] },
  { collection: 'posts', action: 'create', fields: ['*'] },
  { collection: 'posts', action: 'update', fields: ['title'] },
];

let w = 0;
/** A user of `main` in a role of their own whose one policy holds `rules`; `reduce` swaps it for TITLES_ONLY. */
async function writer(rules: object[]) {
  const k = ++w;
  const role = (await ok('POST', '/api/v1/roles', { name: `Writer ${k}` })).id as string;
  const policy = (await ok('POST', '/api/v1/policies', { name: `Writer ${k} rules` })).id as string;
  for (const rule of rules) await ok('POST', `/api/v1/policies/${policy}/permissions`, rule);
  await ok('POST', `/api/v1/policies/${policy}/attach`, { role });
  const token = await createUser(t, `writer${k}@example.com`, PASSWORD, { main: role });
  const id = (await ok('GET', '/api/v1/auth/me', undefined, token)).id as string;
  let n = 0;
  return {
    token,
    id,
    policy,
    /** A post of this writer, as draft. */
    post: async () => {
      const postId = `w${k}-${++n}`;
      await ok('POST', '/api/v1/items/posts', { id: postId, title: postId, status: 'draft' }, token);
      return postId;
    },
    release: async (body: object) => {
      const res = await call('POST', '/api/v1/releases', body, token);
      expect(res.statusCode, res.body).toBe(201);
      return res.json().data.id as string;
    },
    reduce: async () => {
      const titles = (await ok('POST', '/api/v1/policies', { name: `Writer ${k} titles` })).id as string;
      for (const rule of TITLES_ONLY) await ok('POST', `/api/v1/policies/${titles}/permissions`, rule);
      await ok('POST', `/api/v1/policies/${titles}/attach`, { role });
      await ok('POST', `/api/v1/policies/${policy}/detach`, { role });
    },
  };
}
const inSeconds = (s: number) => new Date(clock.now().getTime() + s * 1000).toISOString();

beforeAll(async () => {
  t = await createTestApp({ clock });
  admin = await t.setup();
  await ok('POST', '/api/v1/sites', { id: 'other', name: 'Other' });
  await ok('POST', '/api/v1/collections', { name: 'posts' });
  await ok('POST', '/api/v1/fields/posts', { field: 'title', type: 'string' });
});
afterAll(() => t.close());

describe('adding items to a release', () => {
  it('refuses (403) an item whose row the author may not update, at creation and on PATCH', async () => {
    const u = await writer(OWN_POSTS);
    const mine = await u.post();
    await ok('POST', '/api/v1/items/posts', { id: 'by-admin', title: 'by admin', status: 'draft' });
    expect((await call('PATCH', '/api/v1/items/posts/by-admin', { status: 'published' }, u.token)).statusCode).toBe(
      403,
    );
    const created = await call(
      'POST',
      '/api/v1/releases',
      { name: 'x', addItems: [item(mine), item('by-admin')] },
      u.token,
    );
    expect(created.statusCode).toBe(403);
    expect(created.json().errors[0]).toMatchObject({
      code: 'PERMISSION_DENIED',
      path: ['addItems', '1'],
      extensions: { collection: 'posts', itemId: 'by-admin' },
    });
    const r = await u.release({ name: 'Mine', addItems: [item(mine)] });
    const patched = await call('PATCH', `/api/v1/releases/${r}`, { addItems: [item('by-admin')] }, u.token);
    expect(patched.statusCode).toBe(403);
    expect(patched.json().errors[0]).toMatchObject({
      code: 'PERMISSION_DENIED',
      path: ['addItems', '0'],
      extensions: { collection: 'posts', itemId: 'by-admin' },
    });
    expect((await call('GET', `/api/v1/releases/${r}`, undefined, u.token)).json().data.items).toEqual([item(mine)]);
  });

  it('refuses (403) an item whose status field the author may not write', async () => {
    const u = await writer(TITLES_ONLY);
    const mine = await u.post();
    expect((await call('PATCH', `/api/v1/items/posts/${mine}`, { status: 'published' }, u.token)).statusCode).toBe(403);
    const res = await call('POST', '/api/v1/releases', { name: 'x', addItems: [item(mine)] }, u.token);
    expect(res.statusCode).toBe(403);
    expect(res.json().errors[0]).toMatchObject({ code: 'PERMISSION_DENIED', path: ['addItems', '0', 'status'] });
  });

  it('never names items of another site', async () => {
    await call('POST', '/api/v1/collections', { name: 'posts' }, admin, 'other');
    expect(
      (await call('POST', '/api/v1/items/posts', { id: 'elsewhere', status: 'draft' }, admin, 'other')).statusCode,
    ).toBe(201);
    const res = await call('POST', '/api/v1/releases', { name: 'x', addItems: [item('elsewhere')] });
    expect(res.statusCode).toBe(404);
    expect(res.json().errors[0].code).toBe('ITEM_NOT_FOUND');
    const r = (await ok('POST', '/api/v1/releases', { name: 'Main only' })).id as string;
    const patched = await call('PATCH', `/api/v1/releases/${r}`, { addItems: [item('elsewhere')] });
    expect(patched.statusCode).toBe(404);
    expect((await call('POST', `/api/v1/releases/${r}/publish`, undefined, admin, 'other')).statusCode).toBe(404);
    expect((await call('GET', '/api/v1/items/posts/elsewhere', undefined, admin, 'other')).json().data.status).toBe(
      'draft',
    );
  });
});

describe('publishing as the author', () => {
  const denied = (itemId: string) => ({ collection: 'posts', itemId, outcome: 'failed', reason: 'PERMISSION_DENIED' });

  it('a permitted author publishes, by hand and on schedule', async () => {
    const u = await writer(OWN_POSTS);
    const [a, b] = [await u.post(), await u.post()];
    const now = await u.release({ name: 'Now', addItems: [item(a)] });
    const [created] = await collect(t.deps.store.readStream(releaseStream('main', now)));
    expect(created!.data).toMatchObject({ by: u.id, author: { type: 'user', id: u.id, amr: ['pwd'] } });
    const res = await call('POST', `/api/v1/releases/${now}/publish`, undefined, u.token);
    expect(res.json().data.status, res.body).toBe('published');
    const later = await u.release({ name: 'Later', publishAt: inSeconds(3), addItems: [item(b)] });
    clock.advance(4000);
    expect(await sweepDueReleases(t.deps)).toContainEqual({ siteId: 'main', id: later, status: 'published' });
    expect([await status(a), await status(b)]).toEqual(['published', 'published']);
  });

  it('a manual publish after the author lost the right fails with PERMISSION_DENIED, whoever presses it', async () => {
    const u = await writer(OWN_POSTS);
    const [a, b] = [await u.post(), await u.post()];
    const own = await u.release({ name: 'Own', addItems: [item(a)] });
    const forAdmin = await u.release({ name: 'For the admin', atomicityMode: 'best_effort', addItems: [item(b)] });
    await u.reduce();
    expect((await call('PATCH', `/api/v1/items/posts/${a}`, { status: 'published' }, u.token)).statusCode).toBe(403);
    const mine = await call('POST', `/api/v1/releases/${own}/publish`, undefined, u.token);
    expect(mine.statusCode, mine.body).toBe(200);
    expect(mine.json().data).toMatchObject({ status: 'failed', outcomes: [denied(a)] });
    const theirs = await call('POST', `/api/v1/releases/${forAdmin}/publish`);
    expect(theirs.json().data).toMatchObject({ status: 'failed', outcomes: [denied(b)] });
    expect([await status(a), await status(b)]).toEqual(['draft', 'draft']);
  });

  it('the scheduler acts with the author rights as they are at publish time', async () => {
    const u = await writer(OWN_POSTS);
    const gone = await writer(OWN_POSTS);
    const [a, g] = [await u.post(), await gone.post()];
    const reduced = await u.release({ name: 'Reduced', publishAt: inSeconds(3), addItems: [item(a)] });
    const left = await gone.release({ name: 'Left', publishAt: inSeconds(3), addItems: [item(g)] });
    await u.reduce();
    const now = clock.now().toISOString();
    const metadata = { ...meta(now), siteId: '_system' };
    await handleCommand(
      t.deps.store,
      userDecider,
      userStream(gone.id),
      { type: 'RevokeSiteRole', data: { userId: gone.id, siteId: 'main', now } },
      { metadata },
    );
    clock.advance(4000);
    const swept = await sweepDueReleases(t.deps);
    expect(swept).toContainEqual({ siteId: 'main', id: reduced, status: 'failed' });
    expect(swept).toContainEqual({ siteId: 'main', id: left, status: 'failed' });
    expect((await call('GET', `/api/v1/releases/${reduced}`)).json().data.outcomes).toEqual([denied(a)]);
    expect((await call('GET', `/api/v1/releases/${left}`)).json().data.outcomes).toEqual([denied(g)]);
    expect([await status(a), await status(g)]).toEqual(['draft', 'draft']);
  });

  it('all_or_nothing publishes nothing when one item is denied; best_effort publishes the others', async () => {
    const u = await writer(OWN_POSTS);
    const [a, b, c, d] = [await u.post(), await u.post(), await u.post(), await u.post()];
    const atomic = await u.release({ name: 'Atomic', addItems: [item(a), item(b)] });
    const best = await u.release({ name: 'Best', atomicityMode: 'best_effort', addItems: [item(c), item(d)] });
    // The rule's conditions now exclude b and d.
    await ok('PATCH', `/api/v1/items/posts/${b}`, { title: 'locked' });
    await ok('PATCH', `/api/v1/items/posts/${d}`, { title: 'locked' });
    const one = (await call('POST', `/api/v1/releases/${atomic}/publish`, undefined, u.token)).json().data;
    expect(one).toMatchObject({
      status: 'failed',
      outcomes: [{ collection: 'posts', itemId: a, outcome: 'skipped' }, denied(b)],
    });
    const other = (await call('POST', `/api/v1/releases/${best}/publish`, undefined, u.token)).json().data;
    expect(other).toMatchObject({
      status: 'partially_failed',
      outcomes: [{ collection: 'posts', itemId: c, outcome: 'published' }, denied(d)],
    });
    expect([await status(a), await status(b), await status(c), await status(d)]).toEqual([
      'draft',
      'draft',
      'published',
      'draft',
    ]);
  });

  it('applies the rule validation at publish time (VALIDATION_FAILED), as PATCH does', async () => {
    const u = await writer([
      ...OWN_POSTS.slice(0, 2),
      { ...OWN_POSTS[2], validation: { status: { _in: ['draft', 'review'] } } },
    ]);
    const a = await u.post();
    const patched = await call('PATCH', `/api/v1/items/posts/${a}`, { status: 'published' }, u.token);
    expect(patched.json().errors[0].code).toBe('VALIDATION_FAILED');
    const r = await u.release({ name: 'Invalid', addItems: [item(a)] });
    const res = (await call('POST', `/api/v1/releases/${r}/publish`, undefined, u.token)).json().data;
    expect(res).toMatchObject({
      status: 'failed',
      outcomes: [{ collection: 'posts', itemId: a, outcome: 'failed', reason: 'VALIDATION_FAILED' }],
    });
    expect(await status(a)).toBe('draft');
  });

  it('an API key author: its release publishes while the key lives, and not once it is revoked', async () => {
    const key = async () => {
      const res = await call('POST', '/api/v1/api-keys', { name: `Release bot ${++w}`, roleKey: 'editor' });
      expect(res.statusCode, res.body).toBe(201);
      return res.json().data as { id: string; key: string };
    };
    const [live, revoked] = [await key(), await key()];
    const [a, b] = ['bot-1', 'bot-2'];
    for (const id of [a, b]) await ok('POST', '/api/v1/items/posts', { id, title: id, status: 'draft' });
    const schedule = async (token: string, id: string) => {
      const res = await call(
        'POST',
        '/api/v1/releases',
        { name: id, publishAt: inSeconds(3), addItems: [item(id)] },
        token,
      );
      expect(res.statusCode, res.body).toBe(201);
      return res.json().data.id as string;
    };
    const [ra, rb] = [await schedule(live.key, a), await schedule(revoked.key, b)];
    expect((await call('DELETE', `/api/v1/api-keys/${revoked.id}`)).statusCode).toBeLessThan(300);
    clock.advance(4000);
    const swept = await sweepDueReleases(t.deps);
    expect(swept).toContainEqual({ siteId: 'main', id: ra, status: 'published' });
    expect(swept).toContainEqual({ siteId: 'main', id: rb, status: 'failed' });
    expect((await call('GET', `/api/v1/releases/${rb}`)).json().data.outcomes).toEqual([denied(b)]);
    expect([await status(a), await status(b)]).toEqual(['published', 'draft']);
  });

  it('a second factor a policy now asks for holds against the session that authored the release', async () => {
    const u = await writer(OWN_POSTS);
    const a = await u.post();
    const r = await u.release({ name: 'Without MFA', publishAt: inSeconds(3), addItems: [item(a)] });
    await ok('PATCH', `/api/v1/policies/${u.policy}`, { requireMfa: true });
    expect((await call('PATCH', `/api/v1/items/posts/${a}`, { status: 'published' }, u.token)).statusCode).toBe(401);
    clock.advance(4000);
    expect(await sweepDueReleases(t.deps)).toContainEqual({ siteId: 'main', id: r, status: 'failed' });
    expect((await call('GET', `/api/v1/releases/${r}`)).json().data.outcomes).toEqual([denied(a)]);
    expect(await status(a)).toBe('draft');
  });

  it('a manual publish needs the presser rights too', async () => {
    const u = await writer(OWN_POSTS);
    const presser = await writer(TITLES_ONLY);
    const a = await u.post();
    const r = await u.release({ name: 'Pressed by another', addItems: [item(a)] });
    const res = await call('POST', `/api/v1/releases/${r}/publish`, undefined, presser.token);
    expect(res.json().data).toMatchObject({ status: 'failed', outcomes: [denied(a)] });
    expect(await status(a)).toBe('draft');
  });
});

function meta(now: string) {
  return {
    siteId: 'main',
    actor: { type: 'system' as const, id: 'test' },
    correlationId: 'test',
    causationId: null,
    requestId: null,
    occurredAt: now,
  };
}
