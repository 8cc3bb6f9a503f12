import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';
import { createUser } from '../../../test/setup/users.ts';
import { ManualClock } from '../../kernel/clock.ts';

const clock = new ManualClock(new Date('2026-03-01T00:00:00Z'));
let t: TestApp;
let admin: string;
let editor: string;
const call = (method: 'GET' | 'POST' | 'PATCH', url: string, payload?: unknown, site = 'main', as = admin) =>
  t.call({ method, url, payload: payload as object, as, site });
const me = async (token: string) => (await call('GET', '/api/v1/auth/me', undefined, 'main', token)).json().data;

/** A change made by an AI agent, appended the way an agent's command would be. */
const agentUpdate = async (id: string, changes: object) => {
  const version = (await t.deps.store.streamVersion(`main/item/articles/${id}`)) ?? 0;
  await t.deps.store.append(
    `main/item/articles/${id}`,
    [
      {
        type: 'ItemUpdated',
        data: { collection: 'articles', id, changes, at: clock.now().toISOString(), by: 'agent-7' },
        metadata: {
          siteId: 'main',
          actor: { type: 'agent', id: 'agent-7' },
          correlationId: 'agent-run',
          causationId: null,
          requestId: null,
          occurredAt: clock.now().toISOString(),
        },
      },
    ],
    { expectedVersion: version },
  );
};

beforeAll(async () => {
  t = await createTestApp({ clock });
  admin = await t.setup();
  editor = await createUser(t, 'editor@example.com', 'Editor-pass-1234', { main: 'editor' });
  await call('POST', '/api/v1/sites', { id: 'other', name: 'Other' });
  await call('POST', '/api/v1/collections', { name: 'articles' });
  await call('POST', '/api/v1/fields/articles', { field: 'title', type: 'string' });
  clock.set('2026-03-02T00:00:00Z');
  await call('POST', '/api/v1/items/articles', { id: 'mine', title: 'Mine' }, 'main', editor);
  await call('POST', '/api/v1/items/articles', { id: 'theirs', title: 'Theirs' });
  clock.set('2026-03-03T00:00:00Z');
  await agentUpdate('mine', { title: 'Mine, summarised' });
  await agentUpdate('theirs', { title: 'Theirs, summarised' });
});
afterAll(() => t.close());

describe('audit log', () => {
  it('pages the site’s events newest first with type, stream, version, actor, time and data', async () => {
    const res = await call('GET', '/api/v1/audit?limit=2');
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.data).toHaveLength(2);
    expect(body.data[0]).toMatchObject({
      type: 'ItemUpdated',
      stream: 'main/item/articles/theirs',
      version: 2,
      actor: { type: 'agent', id: 'agent-7' },
      time: expect.any(String),
      data: { changes: { title: 'Theirs, summarised' } },
    });
    expect(body.data[1]).toMatchObject({ type: 'ItemUpdated', stream: 'main/item/articles/mine' });
    const next = await call('GET', `/api/v1/audit?limit=2&before=${body.meta.next}`);
    expect(next.json().data.map((e: { type: string; stream: string }) => `${e.type} ${e.stream}`)).toEqual([
      'ItemCreated main/item/articles/theirs',
      'ItemCreated main/item/articles/mine',
    ]);
  });

  it('filters by type, stream, actor and time, and never shows another site', async () => {
    const list = async (q: string, site = 'main') =>
      (await call('GET', `/api/v1/audit?limit=200&${q}`, undefined, site)).json().data as {
        type: string;
        stream: string;
      }[];
    expect((await list('type=ItemCreated')).map((e) => e.stream).sort()).toEqual([
      'main/item/articles/mine',
      'main/item/articles/theirs',
    ]);
    expect((await list('stream=main/item/articles/mine')).map((e) => e.type)).toEqual(['ItemUpdated', 'ItemCreated']);
    expect((await list('actor=agent-7')).length).toBe(2);
    expect((await list('from=2026-03-02T12:00:00Z&type=ItemUpdated')).length).toBe(2);
    expect((await list('to=2026-03-02T12:00:00Z&type=ItemUpdated')).length).toBe(0);
    expect((await list('', 'other')).every((e) => !e.stream.startsWith('main/'))).toBe(true);
  });

  it('is for site admins, and rejects bad filters with 400', async () => {
    expect((await call('GET', '/api/v1/audit', undefined, 'main', editor)).statusCode).toBe(403);
    for (const q of ['from=yesterday', 'limit=0', 'before=x', 'colour=red']) {
      const res = await call('GET', `/api/v1/audit?${q}`);
      expect(res.statusCode, q).toBe(400);
      expect(res.json().errors[0].code).toBe('VALIDATION_FAILED');
    }
  });
});

describe('automated decisions', () => {
  it('lists the agent revisions of the caller’s own content only', async () => {
    const res = await call('GET', '/api/v1/me/automated-decisions', undefined, 'main', editor);
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toEqual([
      expect.objectContaining({
        itemId: 'mine',
        action: 'update',
        actor: { type: 'agent', id: 'agent-7' },
        delta: { title: 'Mine, summarised' },
      }),
    ]);
    expect((await me(editor)).id).toBeTruthy();
    const adminList = (await call('GET', '/api/v1/me/automated-decisions')).json().data;
    expect(adminList.map((r: { itemId: string }) => r.itemId)).toEqual(['theirs']);
    expect((await call('GET', '/api/v1/me/automated-decisions', undefined, 'other')).json().data).toEqual([]);
  });

  it('shows the values as the caller may read them: a field outside their rules is in neither data nor delta', async () => {
    await call('POST', '/api/v1/fields/articles', { field: 'internal', type: 'string' });
    const role = (await call('POST', '/api/v1/roles', { name: 'Titles' })).json().data.id;
    const policy = (await call('POST', '/api/v1/policies', { name: 'Titles only' })).json().data.id;
    for (const action of ['create', 'read'])
      await call('POST', `/api/v1/policies/${policy}/permissions`, {
        collection: 'articles',
        action,
        fields: ['title'],
      });
    await call('POST', `/api/v1/policies/${policy}/attach`, { role });
    const writer = await createUser(t, 'titles@example.com', 'Titles-pass-1234', { main: role });
    await call('POST', '/api/v1/items/articles', { id: 'titled', title: 'Titled' }, 'main', writer);
    await agentUpdate('titled', { title: 'Titled, summarised', internal: 'agent note' });
    const res = await call('GET', '/api/v1/me/automated-decisions', undefined, 'main', writer);
    expect(res.json().data).toEqual([
      expect.objectContaining({
        itemId: 'titled',
        data: { title: 'Titled, summarised' },
        delta: { title: 'Titled, summarised' },
      }),
    ]);
    expect(res.body).not.toContain('agent note');
  });
});
