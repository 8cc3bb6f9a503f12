import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../kernel/clock.ts';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';
import { createUser } from '../../../test/setup/users.ts';
import { sweepDueReleases } from './index.ts';
import { handleCommand } from '../../kernel/es/handle-command.ts';
import { releaseDecider } from './release.decider.ts';
import { releaseStream } from '../../contracts/releases/release.events.ts';

let t: TestApp;
let admin: string;
const clock = new ManualClock(new Date('2026-06-01T08:00:00Z')); // a Monday
type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';
const call = (method: Method, url: string, payload?: unknown, as = admin, site = 'main') =>
  t.call({ method, url, payload: payload as object, as, site });
const status = async (collection: string, id: string) =>
  (await call('GET', `/api/v1/items/${collection}/${id}`)).json().data.status;
const release = async (body: object) => {
  const res = await call('POST', '/api/v1/releases', body);
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data as { id: string; status: string };
};
const item = (id: string, targetStatus = 'published', collection = 'posts') => ({
  collection,
  itemId: id,
  targetStatus,
});
let n = 0;
const newPost = async (s = 'draft') => {
  const id = `p${++n}`;
  expect((await call('POST', '/api/v1/items/posts', { id, title: id, status: s })).statusCode).toBe(201);
  return id;
};

beforeAll(async () => {
  t = await createTestApp({ clock });
  admin = await t.setup();
  await call('POST', '/api/v1/sites', { id: 'other', name: 'Other' });
  await call('POST', '/api/v1/collections', { name: 'posts' });
  await call('POST', '/api/v1/fields/posts', { field: 'title', type: 'string' });
  await call('POST', '/api/v1/collections', {
    name: 'gated',
    workflow: { field: 'status', transitions: { draft: ['review'], review: ['published'] } },
  });
});
afterAll(() => t.close());

describe('creating releases', () => {
  it('starts as draft without publishAt and scheduled with one; a past publishAt is 422', async () => {
    const a = await newPost();
    expect((await release({ name: 'Now', addItems: [item(a)] })).status).toBe('draft');
    const later = new Date(clock.now().getTime() + 3600_000).toISOString();
    expect((await release({ name: 'Later', publishAt: later, addItems: [item(a)] })).status).toBe('scheduled');
    const past = await call('POST', '/api/v1/releases', { name: 'Past', publishAt: '2020-01-01T00:00:00Z' });
    expect(past.statusCode).toBe(422);
    expect(past.json().errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', path: ['publishAt'] });
    const bad = await call('POST', '/api/v1/releases', { name: '', atomicityMode: 'sometimes' });
    expect(bad.statusCode).toBe(422);
  });

  it('judges publishAt before the items: a past publishAt with a missing item is 422', async () => {
    const body = { name: 'x', publishAt: '2020-01-01T00:00:00Z', addItems: [item('ghost')] };
    const created = await call('POST', '/api/v1/releases', body);
    expect([created.statusCode, created.json().errors[0].path]).toEqual([422, ['publishAt']]);
    const r = await release({ name: 'Patched' });
    const patched = await call('PATCH', `/api/v1/releases/${r.id}`, body);
    expect([patched.statusCode, patched.json().errors[0].path]).toEqual([422, ['publishAt']]);
  });

  it('refuses items of unknown collections (422) and missing items (404 ITEM_NOT_FOUND)', async () => {
    const unknown = await call('POST', '/api/v1/releases', { name: 'x', addItems: [item('x', 'published', 'nope')] });
    expect(unknown.statusCode).toBe(422);
    expect(unknown.json().errors[0].path).toEqual(['addItems', '0', 'collection']);
    const missing = await call('POST', '/api/v1/releases', { name: 'x', addItems: [item('ghost')] });
    expect(missing.statusCode).toBe(404);
    expect(missing.json().errors[0].code).toBe('ITEM_NOT_FOUND');
  });

  it('lists by status with paging, reads one with its items, deletes, and keeps sites apart', async () => {
    const r = await release({ name: 'Listed' });
    const drafts = (await call('GET', '/api/v1/releases?status=draft&limit=200')).json();
    expect(drafts.data.map((x: { id: string }) => x.id)).toContain(r.id);
    expect(drafts.meta).toMatchObject({ page: 1, pageSize: 200 });
    expect((await call('GET', `/api/v1/releases/${r.id}`)).json().data.items).toEqual([]);
    expect((await call('GET', `/api/v1/releases/${r.id}`, undefined, admin, 'other')).statusCode).toBe(404);
    expect((await call('DELETE', `/api/v1/releases/${r.id}`)).statusCode).toBe(204);
    expect((await call('GET', `/api/v1/releases/${r.id}`)).statusCode).toBe(404);
  });

  it('is for those who may update items', async () => {
    const viewer = await createUser(t, 'viewer@example.com', 'Viewer-pass-1234!', { main: 'viewer' });
    expect((await call('POST', '/api/v1/releases', { name: 'x' }, viewer)).statusCode).toBe(403);
    expect((await call('GET', '/api/v1/releases', undefined, viewer)).statusCode).toBe(200);
  });
});

describe('publishing', () => {
  it('publishes every item, then refuses to publish or edit again', async () => {
    const [a, b] = [await newPost(), await newPost()];
    const r = await release({ name: 'All', addItems: [item(a), item(b)] });
    const res = await call('POST', `/api/v1/releases/${r.id}/publish`);
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({
      status: 'published',
      outcomes: [
        { collection: 'posts', itemId: a, outcome: 'published' },
        { collection: 'posts', itemId: b, outcome: 'published' },
      ],
      release: { id: r.id, status: 'published' },
    });
    expect([await status('posts', a), await status('posts', b)]).toEqual(['published', 'published']);
    const again = await call('POST', `/api/v1/releases/${r.id}/publish`);
    expect(again.statusCode).toBe(409);
    expect(again.json().errors[0].code).toBe('ALREADY_PUBLISHED');
    const edit = await call('PATCH', `/api/v1/releases/${r.id}`, { removeItems: [{ collection: 'posts', itemId: a }] });
    expect(edit.statusCode).toBe(409);
    expect(edit.json().errors[0].code).toBe('RELEASE_IMMUTABLE');
  });

  it('answers 422 EMPTY_RELEASE for a release without items and leaves it as it was', async () => {
    const r = await release({ name: 'Empty' });
    const res = await call('POST', `/api/v1/releases/${r.id}/publish`);
    expect(res.statusCode).toBe(422);
    expect(res.json().errors[0].code).toBe('EMPTY_RELEASE');
    expect((await call('GET', `/api/v1/releases/${r.id}`)).json().data.status).toBe('draft');
  });

  it('all_or_nothing publishes nothing when one item is deleted', async () => {
    const [a, d] = [await newPost(), await newPost()];
    const r = await release({ name: 'Atomic', addItems: [item(a), item(d)] });
    await call('DELETE', `/api/v1/items/posts/${d}`);
    const res = (await call('POST', `/api/v1/releases/${r.id}/publish`)).json().data;
    expect(res.status).toBe('failed');
    expect(res.outcomes).toEqual([
      { collection: 'posts', itemId: a, outcome: 'skipped' },
      { collection: 'posts', itemId: d, outcome: 'failed', reason: 'ITEM_DELETED' },
    ]);
    expect(await status('posts', a)).toBe('draft');
  });

  it('best_effort publishes what it can: partially_failed, with the gate and deletions as reasons', async () => {
    const a = await newPost();
    const d = await newPost();
    await call('DELETE', `/api/v1/items/posts/${d}`);
    expect((await call('POST', '/api/v1/items/gated', { id: 'g1', status: 'draft' })).statusCode).toBe(201);
    const r = await release({
      name: 'Best',
      atomicityMode: 'best_effort',
      addItems: [item(a), item(d), item('g1', 'published', 'gated')],
    });
    const res = (await call('POST', `/api/v1/releases/${r.id}/publish`)).json().data;
    expect(res.status).toBe('partially_failed');
    expect(res.outcomes).toEqual([
      { collection: 'posts', itemId: a, outcome: 'published' },
      { collection: 'posts', itemId: d, outcome: 'failed', reason: 'ITEM_DELETED' },
      { collection: 'gated', itemId: 'g1', outcome: 'failed', reason: 'EDITORIAL_GATE_REQUIRED' },
    ]);
    expect(await status('posts', a)).toBe('published');
    expect(await status('gated', 'g1')).toBe('draft');
  });

  it('best_effort with every item blocked fails', async () => {
    expect((await call('POST', '/api/v1/items/gated', { id: 'g2', status: 'draft' })).statusCode).toBe(201);
    const r = await release({
      name: 'None',
      atomicityMode: 'best_effort',
      addItems: [item('g2', 'published', 'gated')],
    });
    expect((await call('POST', `/api/v1/releases/${r.id}/publish`)).json().data.status).toBe('failed');
  });

  it('publishes a pinned revision values', async () => {
    const a = await newPost();
    const first = (await call('GET', `/api/v1/items/posts/${a}/revisions`)).json().data[0].id;
    await call('PATCH', `/api/v1/items/posts/${a}`, { title: 'changed later' });
    const r = await release({ name: 'Pinned', addItems: [{ ...item(a), revisionId: first }] });
    expect((await call('POST', `/api/v1/releases/${r.id}/publish`)).json().data.status).toBe('published');
    const now = (await call('GET', `/api/v1/items/posts/${a}`)).json().data;
    expect(now).toMatchObject({ title: a, status: 'published' });
  });
});

describe('content scheduler', () => {
  it('publishes a due release once, only inside its maintenance window', async () => {
    const a = await newPost();
    const b = await newPost();
    const publishAt = new Date(clock.now().getTime() + 3600_000).toISOString();
    const open = await release({ name: 'Timed', publishAt, addItems: [item(a)] });
    const windowed = await release({
      name: 'Windowed',
      publishAt,
      addItems: [item(b)],
      maintenanceWindow: { windows: [{ dow: 1, start: '22:00', end: '02:00' }] },
    });
    expect(await sweepDueReleases(t.deps)).toEqual([]);
    clock.advance(2 * 3600_000); // 10:00 Monday: due, the window closed
    const first = (await sweepDueReleases(t.deps)).map((x) => x.id);
    expect(first).toContain(open.id);
    expect(first).not.toContain(windowed.id);
    expect(await status('posts', a)).toBe('published');
    expect(await sweepDueReleases(t.deps)).toEqual([]);
    expect((await call('GET', `/api/v1/releases/${windowed.id}`)).json().data.status).toBe('scheduled');
    clock.set('2026-06-02T01:00:00Z'); // Tuesday 01:00, inside the window that began Monday 22:00
    expect((await sweepDueReleases(t.deps)).map((x) => x.id)).toEqual([windowed.id]);
    expect(await status('posts', b)).toBe('published');
    const [x, y] = await Promise.all([sweepDueReleases(t.deps), sweepDueReleases(t.deps)]);
    expect([...x, ...y]).toEqual([]);
  });
});

describe('a publish cut off by a crash', () => {
  it('is finished by the next scheduler tick from what its log holds', async () => {
    const [a, b] = [await newPost(), await newPost()];
    const r = await release({ name: 'Cut off', atomicityMode: 'best_effort', addItems: [item(a), item(b)] });
    // The log as a crash right after the start leaves it: started, no outcome, no end.
    await handleCommand(
      t.deps.store,
      releaseDecider,
      releaseStream('main', r.id),
      { type: 'StartPublish', data: { releaseId: r.id, by: 'crashed', now: clock.now().toISOString() } },
      {
        metadata: {
          siteId: 'main',
          actor: { type: 'system', id: 'test' },
          correlationId: 'crash',
          causationId: null,
          requestId: null,
          occurredAt: clock.now().toISOString(),
        },
      },
    );
    expect((await call('GET', `/api/v1/releases/${r.id}`)).json().data.publishing).toBe(true);
    expect((await sweepDueReleases(t.deps)).map((x) => x.id)).toContain(r.id);
    const done = (await call('GET', `/api/v1/releases/${r.id}`)).json().data;
    expect(done).toMatchObject({ status: 'published', publishing: false });
    expect(done.outcomes).toHaveLength(2);
    expect(await status('posts', a)).toBe('published');
    expect(await sweepDueReleases(t.deps)).toEqual([]);
  });
});
