import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../setup/app.ts';

/**
 * The subscription mode on the SQL store: the same path EventStoreDB takes (events appended alone, inline
 * projectors run from a checkpointed reader of the log, a write answering once it is projected), proven here
 * where no EventStoreDB runs.
 */
const SUBSCRIPTION = { SVC_PROJECTION_MODE: 'subscription', SVC_PROJECTION_WAIT_MS: '5000' };

let t: TestApp;
let admin: string;
const call = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown) =>
  t.call({ method, url, payload: payload as object, as: admin, site: 'main' });

const checkpointOf = async (name: string) =>
  (
    await t.deps.db
      .selectFrom('projection_state')
      .select(['checkpoint', 'status'])
      .where('name', '=', name)
      .executeTakeFirstOrThrow()
  ).checkpoint;

const setStatus = (name: string, status: string) =>
  t.deps.database.owner.updateTable('projection_state').set({ status }).where('name', '=', name).execute();

/** Items in the list and revisions of each: a projector that applied an event twice would show it here. */
async function readModel() {
  const list = (await call('GET', '/api/v1/items/notes?sort=title&limit=100')).json();
  const revisions: Record<string, number> = {};
  for (const item of list.data as { id: string; title: string }[])
    revisions[item.title] = (await call('GET', `/api/v1/items/notes/${item.id}/revisions`)).json().meta.total;
  // Bumped once per applied item event, never set: an event applied twice leaves it one too high.
  const changes = await sql<{ n: string }>`select changes::text as n from item_collection_changes
    where site_id = 'main' and collection = 'notes'`.execute(t.deps.database.owner);
  return {
    total: list.meta.total as number,
    titles: list.data.map((i: { title: string }) => i.title),
    revisions,
    changes: Number(changes.rows[0]!.n),
  };
}

beforeAll(async () => {
  t = await createTestApp({ env: SUBSCRIPTION });
  admin = await t.setup();
  await call('POST', '/api/v1/collections', { name: 'notes' });
  await call('POST', '/api/v1/fields/notes', { field: 'title', type: 'string', required: true });
  await call('POST', '/api/v1/fields/notes', { field: 'views', type: 'integer', default: 0 });
});
afterAll(() => t.close());

describe('the subscription mode on the SQL store', () => {
  it('moves the checkpoints of inline projectors with each write (they no longer run inside the append)', async () => {
    const before = await checkpointOf('item-documents');
    await call('POST', '/api/v1/items/notes', { title: 'moves the checkpoint' });
    const after = await checkpointOf('item-documents');
    expect(after).not.toBeNull();
    expect(t.deps.store.comparePositions(after, before)).toBeGreaterThan(0);
    const status = (await t.deps.engine.status()).find((s) => s.name === 'item-documents')!;
    expect(status).toMatchObject({ mode: 'inline', lag: 0, checkpoint: after });
  });

  it('reads each write right after it: create, read, list, update, delete', async () => {
    const created = await call('POST', '/api/v1/items/notes', { title: 'ryw' });
    expect(created.statusCode).toBe(201);
    const id = created.json().data.id as string;
    expect((await call('GET', `/api/v1/items/notes/${id}`)).json().data).toMatchObject({ id, title: 'ryw', views: 0 });
    const listed = (await call('GET', '/api/v1/items/notes?filter[title][_eq]=ryw')).json();
    expect(listed.data.map((i: { id: string }) => i.id)).toEqual([id]);

    expect((await call('PATCH', `/api/v1/items/notes/${id}`, { views: 7 })).statusCode).toBe(200);
    expect((await call('GET', `/api/v1/items/notes/${id}`)).json().data.views).toBe(7);
    expect((await call('GET', '/api/v1/items/notes?filter[views][_eq]=7')).json().meta.total).toBe(1);

    expect((await call('DELETE', `/api/v1/items/notes/${id}`)).statusCode).toBe(204);
    expect((await call('GET', `/api/v1/items/notes/${id}`)).statusCode).toBe(404);
    expect((await call('GET', '/api/v1/items/notes?filter[title][_eq]=ryw')).json().data).toEqual([]);
  });

  it('reads each of many concurrent writes right after it', async () => {
    const results = await Promise.all(
      Array.from({ length: 12 }, async (_, i) => {
        const id = (await call('POST', '/api/v1/items/notes', { title: `burst ${i}` })).json().data.id as string;
        return (await call('GET', `/api/v1/items/notes/${id}`)).statusCode;
      }),
    );
    expect(results).toEqual(new Array(12).fill(200));
  });

  it('answers a write that cannot be projected after the bounded wait, and projects it once it can', async () => {
    await t.restart({ ...SUBSCRIPTION, SVC_PROJECTION_WAIT_MS: '300' });
    const rename = (from: string, to: string) =>
      sql`alter table ${sql.table(from)} rename to ${sql.table(to)}`.execute(t.deps.database.owner);
    // The read model's table is gone for a moment: every pass fails and is retried.
    await rename('item_documents', 'item_documents_away');
    let id: string;
    try {
      const started = Date.now();
      const created = await call('POST', '/api/v1/items/notes', { title: 'held back' });
      expect(created.statusCode).toBe(201);
      expect(Date.now() - started).toBeGreaterThanOrEqual(290);
      id = created.json().data.id as string;
    } finally {
      await rename('item_documents_away', 'item_documents');
    }
    // The next write waits for everything before it too: the held-back one is projected on the way.
    await call('POST', '/api/v1/items/notes', { title: 'after resume' });
    expect((await call('GET', `/api/v1/items/notes/${id}`)).json().data.title).toBe('held back');
    await t.restart(SUBSCRIPTION);
  });

  it('projects what was appended while it was stopped when it starts again', async () => {
    await t.restart({ ...SUBSCRIPTION, SVC_PROJECTION_WAIT_MS: '0' });
    await setStatus('item-documents', 'paused');
    const id = (await call('POST', '/api/v1/items/notes', { title: 'written while stopped' })).json().data.id as string;
    const held = await checkpointOf('item-documents');
    await setStatus('item-documents', 'live');
    await t.restart(SUBSCRIPTION);
    // The restarted subscription catches up on its own (no write here waits for it): poll briefly.
    for (let i = 0; i < 250 && (await call('GET', `/api/v1/items/notes/${id}`)).statusCode !== 200; i++)
      await new Promise((r) => setTimeout(r, 20));
    expect((await call('GET', `/api/v1/items/notes/${id}`)).json().data.title).toBe('written while stopped');
    expect(t.deps.store.comparePositions(await checkpointOf('item-documents'), held)).toBeGreaterThan(0);
  });
});

describe('a unique field in the subscription mode', () => {
  it('cannot refuse a duplicate (it is committed first), and a rebuild skips it as live projection did', async () => {
    await call('POST', '/api/v1/collections', { name: 'codes' });
    await call('POST', '/api/v1/fields/codes', { field: 'code', type: 'string', unique: true });
    const codes = async () =>
      (await call('GET', '/api/v1/items/codes?sort=code&limit=100')).json().data.map((i: { code: string }) => i.code);
    expect((await call('POST', '/api/v1/items/codes', { code: 'A1' })).statusCode).toBe(201);
    // Inside appends the unique index refuses this write (409); here the event is in the log before any index sees it.
    expect((await call('POST', '/api/v1/items/codes', { code: 'A1' })).statusCode).toBe(201);
    expect((await call('POST', '/api/v1/items/codes', { code: 'B2' })).statusCode).toBe(201);
    const live = await codes();
    expect(live).toEqual(['A1', 'B2']);
    await t.deps.engine.rebuild('item-documents');
    expect(await codes()).toEqual(live);
  });
});

describe('switching the projection mode of a database', () => {
  it('applies every event exactly once across inline → subscription → inline', async () => {
    await t.restart({});
    await call('POST', '/api/v1/items/notes', { title: 'switch: inline 1' });
    const inline = await readModel();

    await t.restart(SUBSCRIPTION);
    expect(await readModel()).toEqual(inline);
    const id = (await call('POST', '/api/v1/items/notes', { title: 'switch: subscription' })).json().data.id as string;
    await call('PATCH', `/api/v1/items/notes/${id}`, { views: 2 });
    const subscribed = await readModel();
    expect(subscribed.total).toBe(inline.total + 1);
    expect(subscribed.changes).toBe(inline.changes + 2);
    expect(subscribed.revisions['switch: subscription']).toBe(2);

    await t.restart({});
    expect(await readModel()).toEqual(subscribed);
    await call('PATCH', `/api/v1/items/notes/${id}`, { views: 3 });
    const back = await readModel();
    expect(back.total).toBe(subscribed.total);
    expect(back.changes).toBe(subscribed.changes + 1);
    expect(back.revisions['switch: subscription']).toBe(3);
    expect(back.revisions['switch: inline 1']).toBe(1);
  });
});
