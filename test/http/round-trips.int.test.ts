import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../setup/app.ts';

/**
 * Round trips to PostgreSQL per request on the hot paths, counted on the serving pool's connections (each
 * `Client.query` is one round trip: a pipelined statement group goes as one). Deterministic, not a timing: the
 * figures of docs/benchmarks.md, held. Node-local caches (schema and access versions, the caller's session) are
 * warm, as on a serving node.
 */
describe.skipIf(!process.env.TEST_DATABASE_URL)('round trips per request (PostgreSQL)', () => {
  let t: TestApp;
  let token: string;
  let id: string;
  const sent: string[] = [];
  let counting = false;
  const original = pg.Client.prototype.query;

  beforeAll(async () => {
    t = await createTestApp();
    token = await t.setup();
    const post = (url: string, payload: unknown) =>
      t
        .call({ method: 'POST', url, as: token, site: 'main', payload: payload as Record<string, unknown> })
        .then((r) => {
          if (r.statusCode >= 300) throw new Error(`${url}: ${r.body}`);
          return r.json();
        });
    await post('/api/v1/collections', { name: 'articles' });
    await post('/api/v1/fields/articles', { field: 'title', type: 'string' });
    await post('/api/v1/fields/articles', { field: 'views', type: 'integer' });
    id = (await post('/api/v1/items/articles', { title: 'first', views: 1 })).data.id;
    pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
      if (counting) {
        // A pipelined group (adapters/db/site-scoped.ts) is one round trip: its statements joined by ' ; '.
        const q = args[0] as string | { text?: string; prelude?: { text: string }[]; main?: { text: string } };
        if (typeof q === 'string') sent.push(q);
        else if (q.main) sent.push([...(q.prelude ?? []), q.main].map((x) => x.text).join(' ; '));
        else sent.push(q.text ?? '?');
      }
      return (original as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof original;
  });
  afterAll(async () => {
    pg.Client.prototype.query = original;
    await t.close();
  });

  let seq = 0;
  const count = async (method: 'GET' | 'POST' | 'PATCH', url: string, body?: () => unknown) => {
    const send = () =>
      t.call({ method, url, as: token, site: 'main', payload: body?.() as Record<string, unknown> | undefined });
    expect((await send()).statusCode).toBeLessThan(300); // warms the caches
    sent.length = 0;
    counting = true;
    const res = await send();
    counting = false;
    expect(res.statusCode).toBeLessThan(300);
    return [...sent];
  };

  it('a read by id is one round trip', async () => {
    expect(await count('GET', `/api/v1/items/articles/${id}`)).toHaveLength(1);
  });

  it('a list with its total is one round trip while the count is cached, two once the collection changed', async () => {
    // The page and the collection's change counter are one statement; a count cached under that counter is reused.
    const cached = await count('GET', '/api/v1/items/articles?limit=25');
    expect(cached).toHaveLength(1);
    expect(cached[0]).toMatch(/item_collection_changes/);
    // A write moves the counter on: the next page counts again, in a second statement.
    const write = await t.call({
      method: 'POST',
      url: '/api/v1/items/articles',
      as: token,
      site: 'main',
      payload: { title: 'moves the counter' },
    });
    expect(write.statusCode).toBe(201);
    sent.length = 0;
    counting = true;
    const res = await t.call({ method: 'GET', url: '/api/v1/items/articles?limit=25', as: token, site: 'main' });
    counting = false;
    expect(res.statusCode).toBe(200);
    expect(sent).toHaveLength(2);
    expect(sent[1]).toMatch(/count\(\*\)/);
    expect(res.json().meta.total).toBe(
      (
        await t.call({ method: 'GET', url: '/api/v1/items/articles?limit=200&meta=none', as: token, site: 'main' })
      ).json().data.length,
    );
  });

  it('the site record is at most two', async () => {
    expect((await count('GET', '/api/v1/site')).length).toBeLessThanOrEqual(2);
  });

  const statements = (trips: string[]) => trips.flatMap((t) => t.split(' ; '));

  it('a create is one transaction in two round trips, with no read of the new stream', async () => {
    const trips = await count('POST', '/api/v1/items/articles', () => ({ title: `new ${seq++}`, views: 2 }));
    expect(statements(trips).filter((q) => /svc_read_stream|svc_stream_version/.test(q))).toEqual([]);
    // begin and the site setting go with the version bump and the events; the read models' writes with the commit.
    expect(trips).toHaveLength(2);
    expect(trips[0]).toMatch(/^begin ; select set_config\(\$1, \$2, true\) ; \s*with s as/);
    expect(trips[1]).toMatch(/insert into "item_documents"[\s\S]* ; commit$/);
    expect(statements(trips).filter((q) => q === 'commit')).toHaveLength(1);
  });

  it('an update on a stream this node wrote last reads no log, no version and no document: two round trips, answered from the write', async () => {
    const trips = await count('PATCH', `/api/v1/items/articles/${id}`, () => ({ title: `changed ${seq++}` }));
    expect(statements(trips).filter((q) => /svc_read_stream|svc_stream_version/.test(q))).toEqual([]);
    expect(statements(trips).filter((q) => q === 'commit')).toHaveLength(1);
    expect(trips).toHaveLength(2);
    expect(statements(trips).filter((q) => /from "?item_documents"? a0/.test(q))).toEqual([]);
  });
});
