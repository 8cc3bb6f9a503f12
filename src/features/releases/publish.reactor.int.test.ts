import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../kernel/clock.ts';
import { collect } from '../../kernel/es/event-store.ts';
import { handleCommand } from '../../kernel/es/handle-command.ts';
import { withSystem } from '../../kernel/tenancy/site.ts';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';
import { sweepDueReleases } from './index.ts';
import { RELEASE_PUBLISHER } from './publish.reactor.ts';
import { releaseDecider, REQUEST_STALE_MS } from './release.decider.ts';
import { releaseStream } from '../../contracts/releases/release.events.ts';
import { REFUSED_RETRY_MS } from './scheduler.ts';

let t: TestApp;
let admin: string;
const clock = new ManualClock(new Date('2026-06-01T08:00:00Z'));
type Method = 'GET' | 'POST' | 'PATCH';
const call = (method: Method, url: string, payload?: unknown, site = 'main') =>
  t.call({ method, url, payload: payload as object, as: admin, site });
const item = (itemId: string) => ({ collection: 'posts', itemId, targetStatus: 'published' });
let n = 0;
const newPost = async (site = 'main') => {
  const id = `p${++n}`;
  const res = await call('POST', '/api/v1/items/posts', { id, title: id, status: 'draft' }, site);
  expect(res.statusCode, res.body).toBe(201);
  return id;
};
const scheduled = async (body: object, site = 'main') => {
  const publishAt = new Date(clock.now().getTime() + 60_000).toISOString();
  const res = await call('POST', '/api/v1/releases', { name: 'Timed', publishAt, ...body }, site);
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data.id as string;
};
const log = (id: string, site = 'main') => collect(t.deps.store.readStream(releaseStream(site, id)));
const types = async (id: string, site = 'main') => (await log(id, site)).map((e) => e.type);
const postStatus = async (id: string, site = 'main') =>
  (await call('GET', `/api/v1/items/posts/${id}`, undefined, site)).json().data.status;

const schedulerMeta = (id: string) => ({
  siteId: 'main',
  actor: { type: 'scheduler' as const, id: 'content-scheduler' },
  correlationId: `release:${id}`,
  causationId: null,
  requestId: null,
});

beforeAll(async () => {
  t = await createTestApp({ clock });
  admin = await t.setup();
  await call('POST', '/api/v1/sites', { id: 'other', name: 'Other' });
  for (const site of ['main', 'other']) {
    await call('POST', '/api/v1/collections', { name: 'posts' }, site);
    await call('POST', '/api/v1/fields/posts', { field: 'title', type: 'string' }, site);
  }
});
afterAll(() => t.close());

describe('the release publisher (a reactor)', () => {
  it('asks again for a release whose request the publisher gave up on (parked), once the request is stale', async () => {
    const a = await newPost();
    const id = await scheduled({ addItems: [item(a)] });
    clock.advance(120_000);
    const now = clock.now().toISOString();
    await handleCommand(
      t.deps.store,
      releaseDecider,
      releaseStream('main', id),
      { type: 'RequestPublish', data: { releaseId: id, reason: 'due', now } },
      { metadata: { ...schedulerMeta(id), occurredAt: now } },
    );
    // Parking moves the publisher's checkpoint past the request without an answer.
    const head = await t.deps.store.headPosition();
    await withSystem(t.deps.db, (trx) =>
      trx.updateTable('reactor_state').set({ checkpoint: head }).where('name', '=', RELEASE_PUBLISHER).execute(),
    );
    expect(await sweepDueReleases(t.deps)).toEqual([]);
    expect(await postStatus(a)).toBe('draft');
    clock.advance(REQUEST_STALE_MS);
    expect(await sweepDueReleases(t.deps)).toContainEqual({ siteId: 'main', id, status: 'published' });
    expect(await postStatus(a)).toBe('published');
  });

  it('answers the scheduler request with the publish, caused by the request, on the release site only', async () => {
    const [a, b] = [await newPost(), await newPost('other')];
    const mine = await scheduled({ addItems: [item(a)] });
    const theirs = await scheduled({ addItems: [item(b)] }, 'other');
    clock.advance(120_000);
    const swept = await sweepDueReleases(t.deps);
    expect(swept).toContainEqual({ siteId: 'main', id: mine, status: 'published' });
    expect(swept).toContainEqual({ siteId: 'other', id: theirs, status: 'published' });
    const events = await log(mine);
    expect(events.map((e) => e.type).slice(-2)).toEqual(['ReleasePublishRequested', 'ReleasePublished']);
    const [requested, published] = events.slice(-2);
    expect(requested!.metadata.actor).toEqual({ type: 'scheduler', id: 'content-scheduler' });
    expect(requested!.data).toMatchObject({ releaseId: mine, reason: 'due' });
    expect(published!.metadata).toMatchObject({
      actor: { type: 'scheduler', id: 'content-scheduler' },
      causationId: requested!.eventId,
    });
    expect([await postStatus(a), await postStatus(b, 'other')]).toEqual(['published', 'published']);
  });

  it('publishes nothing twice when it meets a request again (its checkpoint set back, as after a crash)', async () => {
    const a = await newPost();
    const id = await scheduled({ addItems: [item(a)] });
    const before = await t.deps.store.headPosition();
    clock.advance(120_000);
    expect((await sweepDueReleases(t.deps)).map((r) => r.id)).toContain(id);
    const answered = await types(id);
    await withSystem(t.deps.db, (trx) =>
      trx.updateTable('reactor_state').set({ checkpoint: before }).where('name', '=', RELEASE_PUBLISHER).execute(),
    );
    await t.deps.drainReactors(RELEASE_PUBLISHER);
    expect(await types(id)).toEqual(answered);
  });

  it('publishes nothing when a manual publish answered the request first', async () => {
    const a = await newPost();
    const id = await scheduled({ addItems: [item(a)] });
    const now = clock.now().toISOString();
    const metadata = { ...schedulerMeta(id), occurredAt: now };
    await handleCommand(
      t.deps.store,
      releaseDecider,
      releaseStream('main', id),
      { type: 'RequestPublish', data: { releaseId: id, reason: 'due', now } },
      { metadata },
    );
    expect((await call('POST', `/api/v1/releases/${id}/publish`)).json().data.status).toBe('published');
    await t.deps.drainReactors(RELEASE_PUBLISHER);
    expect((await types(id)).slice(-2)).toEqual(['ReleasePublishRequested', 'ReleasePublished']);
  });

  it('records a release that refuses as a whole, leaves it scheduled, and asks again after the retry time or a change', async () => {
    const a = await newPost();
    const id = await scheduled({ addItems: [item(a)] });
    expect(
      (await call('PATCH', `/api/v1/releases/${id}`, { removeItems: [{ collection: 'posts', itemId: a }] })).statusCode,
    ).toBe(200);
    clock.advance(120_000);
    expect((await sweepDueReleases(t.deps)).map((r) => r.id)).not.toContain(id);
    const refused = (await log(id)).at(-1)!;
    expect(refused).toMatchObject({ type: 'ReleasePublishRefused', data: { code: 'EMPTY_RELEASE' } });
    expect((await call('GET', `/api/v1/releases/${id}`)).json().data.status).toBe('scheduled');
    const updatedAt = (await call('GET', `/api/v1/releases/${id}`)).json().data.updatedAt;
    const once = await types(id);
    await sweepDueReleases(t.deps);
    expect(await types(id)).toEqual(once); // inside the retry time: not asked again
    clock.advance(REFUSED_RETRY_MS);
    await sweepDueReleases(t.deps);
    const twice = await types(id);
    expect(twice.slice(once.length)).toEqual(['ReleasePublishRequested', 'ReleasePublishRefused']);
    clock.advance(REFUSED_RETRY_MS); // the second refusal in a row waits twice as long
    await sweepDueReleases(t.deps);
    expect(await types(id)).toEqual(twice);
    clock.advance(REFUSED_RETRY_MS);
    await sweepDueReleases(t.deps);
    expect((await types(id)).slice(twice.length)).toEqual(['ReleasePublishRequested', 'ReleasePublishRefused']);
    // The scheduler's events change nothing a client sees of the release.
    expect((await call('GET', `/api/v1/releases/${id}`)).json().data.updatedAt).toBe(updatedAt);
    expect((await call('PATCH', `/api/v1/releases/${id}`, { addItems: [item(a)] })).statusCode).toBe(200);
    expect(await sweepDueReleases(t.deps)).toContainEqual({ siteId: 'main', id, status: 'published' });
    expect(await postStatus(a)).toBe('published');
  });
});
