import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../setup/app.ts';

/** Many writers at once: no lost update, no cross-site leak (issue "Operations", load and fault tests). */
let t: TestApp;
let admin: string;
const call = (method: 'GET' | 'POST' | 'PATCH', url: string, site: string, payload?: object, headers = {}) =>
  t.call({ method, url, payload, as: admin, site, headers });

beforeAll(async () => {
  t = await createTestApp();
  admin = await t.setup();
  await t.call({ method: 'POST', url: '/api/v1/sites', as: admin, payload: { id: 'west', name: 'West' } });
  for (const site of ['main', 'west']) {
    await call('POST', '/api/v1/collections', site, { name: 'notes' });
    await call('POST', '/api/v1/fields/notes', site, { field: 'site', type: 'string' });
    await call('POST', '/api/v1/fields/notes', site, { field: 'n', type: 'integer' });
  }
});
afterAll(() => t.close());

describe('20 concurrent writers on one item', () => {
  it('with If-Match: exactly one wins, every loser gets CONFLICT, nothing is lost or doubled', async () => {
    const created = await call('POST', '/api/v1/items/notes', 'main', { id: 'hot', site: 'main', n: 0 });
    const version = created.json().meta.version ?? 1;
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        call('PATCH', '/api/v1/items/notes/hot', 'main', { n: i + 1 }, { 'if-match': String(version) }),
      ),
    );
    const won = answers.filter((r) => r.statusCode === 200);
    expect(won).toHaveLength(1);
    for (const r of answers.filter((a) => a.statusCode !== 200)) {
      expect(r.statusCode).toBe(409);
      expect(r.json().errors[0].code).toBe('CONFLICT');
    }
    const n = won[0]!.json().data.n;
    expect((await call('GET', '/api/v1/items/notes/hot', 'main')).json().data.n).toBe(n);
    const events = await sql<{
      c: number;
    }>`select count(*)::int as c from events where stream_id = 'main/item/notes/hot'`.execute(t.deps.database.owner);
    expect(events.rows[0]!.c).toBe(2);
  });

  it('without If-Match: every write lands, each as its own revision', async () => {
    await call('POST', '/api/v1/items/notes', 'main', { id: 'warm', site: 'main', n: 0 });
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => call('PATCH', '/api/v1/items/notes/warm', 'main', { n: i + 1 })),
    );
    expect(answers.every((r) => r.statusCode === 200)).toBe(true);
    const revisions = (await call('GET', '/api/v1/items/notes/warm/revisions?limit=50', 'main')).json();
    expect(revisions.meta.total).toBe(21);
  });
});

describe('10 000 mixed requests across two sites', () => {
  it('never lets one site read or change the other site items', async () => {
    const sites = ['main', 'west'] as const;
    const written: Record<string, Set<string>> = { main: new Set(), west: new Set() };
    let seq = 0;
    const one = async (i: number) => {
      const site = sites[i % 2]!;
      const other = sites[(i + 1) % 2]!;
      const kind = i % 5;
      if (kind === 0) {
        const id = `${site}-${seq++}`;
        const r = await call('POST', '/api/v1/items/notes', site, { id, site, n: i });
        expect(r.statusCode).toBe(201);
        written[site]!.add(id);
      } else if (kind === 1 && written[other]!.size) {
        // Another site's item by id: not found from here, and untouched.
        const id = [...written[other]!][0]!;
        expect((await call('GET', `/api/v1/items/notes/${id}`, site)).statusCode).toBe(404);
        expect((await call('PATCH', `/api/v1/items/notes/${id}`, site, { site })).statusCode).toBe(404);
      } else {
        const r = await call('GET', `/api/v1/items/notes?limit=5&sort=-n`, site);
        expect(r.statusCode).toBe(200);
        for (const item of r.json().data as { site: string }[]) expect(item.site).toBe(site);
      }
    };
    const N = 10_000;
    let next = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next < N) await one(next++);
      }),
    );
    for (const site of sites) {
      const all = (
        await call('GET', '/api/v1/items/notes?limit=200&meta=total_count&filter[id][_nin]=hot,warm', site)
      ).json();
      expect(all.meta.total).toBe(written[site]!.size);
      const leaked = await call('GET', `/api/v1/items/notes?limit=1&meta=total_count&filter[site][_neq]=${site}`, site);
      expect(leaked.json().meta.total).toBe(0);
    }
  }, 300_000);
});
