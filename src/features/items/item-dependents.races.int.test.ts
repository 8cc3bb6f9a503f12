import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN } from '../../../test/setup/app.ts';
import { openTestDatabase } from '../../../test/setup/db.ts';
import { buildApp } from '../../app.ts';
import { loadConfig } from '../../config.ts';
import type { AppendRequest, EventStore } from '../../kernel/es/event-store.ts';
import { startRuntime, type Runtime } from '../../runtime.ts';
import { itemStream, type ItemValues } from '../../contracts/items/item.events.ts';

/**
 * Resolve-dependents and bulk create while other writers change the same items. The service runs on a store that
 * lets a test append "someone else's" change right before each multi-stream append.
 */
let db: Awaited<ReturnType<typeof openTestDatabase>>;
let runtime: Runtime;
let app: FastifyInstance;
let admin: string;
let interfere: ((batch: AppendRequest[]) => Promise<void>) | null = null;
const rel: Record<string, string> = {};

const call = async (method: 'GET' | 'POST' | 'DELETE', url: string, payload?: unknown) =>
  app.inject({
    method,
    url,
    payload: payload as object,
    headers: { authorization: `Bearer ${admin}`, 'x-svc-site': 'main' },
  });
const get = async (c: string, id: string) => (await call('GET', `/api/v1/items/${c}/${id}`)).json().data;
const resolve = (c: string, id: string, body: object) =>
  call('POST', `/api/v1/items/${c}/${id}/resolve-dependents`, body);

/** Someone else's PATCH of one item, appended straight to the log. */
const concurrentUpdate = (collection: string, id: string, changes: ItemValues) =>
  runtime.deps.store.append(
    itemStream('main', collection, id),
    [
      {
        type: 'ItemUpdated',
        data: { collection, id, changes, at: new Date().toISOString(), by: 'someone-else' },
        metadata: {
          siteId: 'main',
          actor: { type: 'system', id: 'someone-else' },
          correlationId: 'elsewhere',
          causationId: null,
          requestId: null,
          occurredAt: new Date().toISOString(),
        },
      },
    ],
    { expectedVersion: 'any' },
  );

beforeAll(async () => {
  db = await openTestDatabase();
  // The pressure limiter is off as in every other test app: PGlite works inside the process and, on a busy machine,
  // holds the event loop long enough to trip it.
  const config = loadConfig({
    LOG_LEVEL: 'silent',
    JWT_SECRET: 'test-secret-test-secret-test-secret-123',
    SVC_PRESSURE_LIMITER_ENABLED: 'false',
  });
  runtime = await startRuntime(config, db, pino({ level: 'silent' }), { asyncWorker: false });
  const inner = runtime.deps.store;
  const store = Object.assign(Object.create(inner) as EventStore, {
    appendMany: async (batch: AppendRequest[]) => {
      if (interfere) await interfere(batch);
      return inner.appendMany(batch);
    },
  });
  app = await buildApp({ ...runtime.deps, store }, { logger: false });
  const setup = await app.inject({
    method: 'POST',
    url: '/api/v1/setup/complete',
    payload: { siteId: 'main', siteName: 'Main', ...ADMIN },
  });
  admin = setup.json().data.token;
  const field = (c: string, f: string, type: string) => call('POST', `/api/v1/fields/${c}`, { field: f, type });
  for (const c of ['authors', 'articles', 'tags', 'article_tags', 'notes'])
    await call('POST', '/api/v1/collections', { name: c });
  await field('authors', 'name', 'string');
  await field('articles', 'title', 'string');
  await field('articles', 'author', 'string');
  await field('articles', 'tags', 'json');
  await field('tags', 'label', 'string');
  await field('article_tags', 'articles_id', 'string');
  await field('article_tags', 'tags_id', 'string');
  await field('notes', 'about', 'json');
  const relation = async (key: string, body: object) => {
    const res = await call('POST', '/api/v1/relations', body);
    expect(res.statusCode, res.body).toBe(201);
    rel[key] = res.json().data.id;
  };
  await relation('author', { kind: 'm2o', collection: 'articles', field: 'author', target: 'authors' });
  await relation('tags', {
    kind: 'm2m',
    collection: 'articles',
    field: 'tags',
    target: 'tags',
    junctionCollection: 'article_tags',
  });
  await relation('about', { kind: 'm2a', collection: 'notes', field: 'about' });
  const post = async (c: string, body: object) =>
    expect((await call('POST', `/api/v1/items/${c}`, body)).statusCode).toBe(201);
  await post('authors', [
    { id: 'ada', name: 'Ada' },
    { id: 'bob', name: 'Bob' },
  ]);
  await post('articles', [
    { id: 'a1', title: 'One', author: 'ada' },
    { id: 'a2', title: 'Two', author: 'ada' },
    { id: 'a3', title: 'Three', author: 'ada' },
  ]);
  await post('tags', [{ id: 't1', label: 'news' }]);
  await post('article_tags', [
    { id: 'j1', articles_id: 'a1', tags_id: 't1' },
    { id: 'j2', articles_id: 'a2', tags_id: 't1' },
  ]);
  await post('notes', { id: 'n1', about: [{ collection: 'authors', item: 'ada' }] });
});
afterAll(async () => {
  await app.close();
  await runtime.stop();
  await db.drop();
});

describe('POST /api/v1/items/:collection/:id/resolve-dependents', () => {
  it('changes none of the referencing items when the last of them keeps changing under it', async () => {
    interfere = async (batch) => {
      if (batch.length > 1) await concurrentUpdate('articles', 'a3', { title: `Three ${batch.length}` });
    };
    const res = await resolve('authors', 'ada', { action: 'set_null', relation: rel.author });
    interfere = null;
    expect(res.statusCode, res.body).toBe(409);
    expect(res.json().errors[0].code).toBe('CONFLICT');
    expect((await get('articles', 'a1')).author).toBe('ada');
    expect((await get('articles', 'a2')).author).toBe('ada');
    expect(await get('articles', 'a3')).toMatchObject({ author: 'ada', title: 'Three 3' });
  });

  it('works from the fresh item when someone changed it between the lookup and the write', async () => {
    const once = (change: () => Promise<unknown>) => {
      interfere = async () => {
        interfere = null;
        await change();
      };
    };
    once(() => concurrentUpdate('articles', 'a2', { author: 'bob' }));
    const m2o = await resolve('authors', 'ada', { action: 'set_null', relation: rel.author });
    expect(m2o.statusCode, m2o.body).toBe(200);
    expect((await get('articles', 'a1')).author).toBeNull();
    expect((await get('articles', 'a2')).author).toBe('bob');
    const both = [
      { collection: 'authors', item: 'ada' },
      { collection: 'authors', item: 'bob' },
    ];
    once(() => concurrentUpdate('notes', 'n1', { about: both }));
    const m2a = await resolve('authors', 'ada', { action: 'set_null', relation: rel.about });
    expect(m2a.statusCode, m2a.body).toBe(200);
    expect((await get('notes', 'n1')).about).toEqual([{ collection: 'authors', item: 'bob' }]);
  });

  it('reassigns the junction rows of the item on the collection side of an m2m', async () => {
    const deps = (await call('GET', '/api/v1/items/articles/a1/dependents')).json().data.dependents;
    expect(deps).toEqual([expect.objectContaining({ collection: 'article_tags', field: 'articles_id', count: 1 })]);
    const res = await resolve('articles', 'a1', { action: 'reassign', relation: rel.tags, newTargetId: 'a3' });
    expect(res.statusCode, res.body).toBe(200);
    expect(await get('article_tags', 'j1')).toMatchObject({ articles_id: 'a3', tags_id: 't1' });
    const wrong = await resolve('articles', 'a2', { action: 'reassign', relation: rel.tags, newTargetId: 't1' });
    expect(wrong.statusCode).toBe(422);
    expect(wrong.json().errors[0].code).toBe('INVALID_TARGET');
    expect((await get('article_tags', 'j2')).articles_id).toBe('a2');
  });
});

describe('POST /api/v1/items/:collection (bulk)', () => {
  it('refuses an array that names one id twice, and writes none of it', async () => {
    const res = await call('POST', '/api/v1/items/authors', [
      { id: 'cy', name: 'Cy' },
      { id: 'twin', name: 'One' },
      { id: 'twin', name: 'Two' },
    ]);
    expect(res.statusCode).toBe(409);
    expect(res.json().errors[0]).toMatchObject({ code: 'CONFLICT', path: ['id'] });
    expect((await call('GET', '/api/v1/items/authors/cy')).statusCode).toBe(404);
    expect((await call('GET', '/api/v1/items/authors/twin')).statusCode).toBe(404);
  });

  it('writes none of the array when another writer creates one of its items first', async () => {
    interfere = async () => {
      interfere = null;
      await runtime.deps.store.append(
        itemStream('main', 'authors', 'taken'),
        [
          {
            type: 'ItemCreated',
            data: {
              collection: 'authors',
              id: 'taken',
              values: { name: 'First' },
              at: new Date().toISOString(),
              by: 'x',
            },
            metadata: {
              siteId: 'main',
              actor: { type: 'system', id: 'x' },
              correlationId: 'elsewhere',
              causationId: null,
              requestId: null,
              occurredAt: new Date().toISOString(),
            },
          },
        ],
        { expectedVersion: 'no_stream' },
      );
    };
    const res = await call('POST', '/api/v1/items/authors', [
      { id: 'dee', name: 'Dee' },
      { id: 'taken', name: 'Second' },
    ]);
    expect(res.statusCode).toBe(409);
    expect((await call('GET', '/api/v1/items/authors/dee')).statusCode).toBe(404);
    expect((await get('authors', 'taken')).name).toBe('First');
  });
});
