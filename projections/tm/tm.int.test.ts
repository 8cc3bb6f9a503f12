import fc from 'fast-check';
import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DB } from '../../src/kernel/db/database.ts';
import { extensionSchema } from '../../src/platform/db/migrate.ts';
import { normaliseText } from '../../src/contracts/tm/tm.types.ts';
import { matchScore } from '../../src/features/tm/tm.match.ts';
import { NARROW_FLOOR, trigramFloor } from './tm.queries.ts';
import { createTestApp, type TestApp } from '../../test/setup/app.ts';

/** The translation-memory read model is the log's, and its lookup candidates come through the trigram index. */
let t: TestApp;
let admin: string;
const call = async (method: 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object) => {
  const res = await t.call({ method, url, as: admin, site: 'main', ...(payload ? { payload } : {}) });
  expect(res.statusCode, res.body).toBeLessThan(300);
  return res.statusCode === 204 ? null : res.json().data;
};
const dump = async () => {
  const out: Record<string, unknown[]> = {};
  for (const [table, order] of [
    ['tm_entries', 'site_id, entry_id'],
    ['tm_glossary', 'site_id, term_id'],
  ] as const) {
    const r = await sql<Record<string, unknown>>`select * from ${sql.table(table)} order by ${sql.raw(order)}`.execute(
      t.deps.database.owner,
    );
    out[table] = r.rows.map((row) => JSON.parse(JSON.stringify(row)) as unknown);
  }
  return out;
};
const words = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliet'];

beforeAll(async () => {
  t = await createTestApp();
  admin = await t.setup();
  const units = Array.from({ length: 400 }, (_, i) => {
    const source = `${words[i % 10]} ${words[(i * 7) % 10]} sentence number ${i}`;
    return `<tu><tuv xml:lang="en"><seg>${source}</seg></tuv><tuv xml:lang="de"><seg>Satz ${i}</seg></tuv></tu>`;
  });
  const doc = `<tmx version="1.4"><header srclang="en"/><body>${units.join('')}</body></tmx>`;
  const res = await t.call({
    method: 'POST',
    url: '/api/v1/tm/import',
    as: admin,
    site: 'main',
    headers: { 'content-type': 'application/x-tmx+xml' },
    payload: doc,
  });
  expect(res.json().data.imported).toBe(400);
  const a = await call('POST', '/api/v1/tm', { sourceLang: 'en', targetLang: 'fr', source: 'One', target: 'Un' });
  await call('PATCH', `/api/v1/tm/${a.id}`, { source: 'One!', quality: 40 });
  const b = await call('POST', '/api/v1/tm', { sourceLang: 'en', targetLang: 'fr', source: 'Two', target: 'Deux' });
  await call('DELETE', `/api/v1/tm/${b.id}`);
  const g = await call('POST', '/api/v1/tm/glossary', {
    sourceLang: 'en',
    targetLang: 'fr',
    term: 'Save',
    translation: 'x',
  });
  await call('PATCH', `/api/v1/tm/glossary/${g.id}`, { translation: 'Enregistrer' });
});
afterAll(() => t.close());

describe('tm read model', () => {
  it('rebuilt from the log equals its live projection', async () => {
    const live = await dump();
    expect(live.tm_entries).toHaveLength(401);
    expect(live.tm_glossary).toHaveLength(1);
    await t.deps.engine.rebuild('tm');
    expect(await dump()).toEqual(live);
  });

  it('finds lookup candidates through the GIN trigram index on the normalised source', async () => {
    const owner = t.deps.database.owner as Kysely<DB>;
    const ext = sql.id(await extensionSchema(owner, 'pg_trgm'));
    const q = normaliseText('Quebec  Romeo');
    await sql`analyze tm_entries`.execute(owner);
    const plan = await owner.transaction().execute(async (trx) => {
      // A small table of one site is cheaper to read by its site key; the point is that the index serves the operator.
      await sql`set local enable_seqscan = off`.execute(trx);
      const r = await sql<{ 'QUERY PLAN': string }>`
        explain select entry_id from tm_entries
        where norm_source operator(${ext}.%) ${q}
        order by ${ext}.similarity(norm_source, ${q}) desc limit 20`.execute(trx);
      return r.rows.map((row) => row['QUERY PLAN']).join('\n');
    });
    expect(plan).toMatch(/Bitmap Index Scan on tm_entries_trgm/);
  });

  it('scores candidates so that a near duplicate wins over others', async () => {
    const res = await t.call({
      method: 'POST',
      url: '/api/v1/tm/lookup',
      as: admin,
      site: 'main',
      payload: { query: 'Charlie echo sentence numbr 12', sourceLang: 'en', targetLang: 'de' },
    });
    expect(res.json().data.match).toMatchObject({ source: 'charlie echo sentence number 12', score: 97 });
  });

  it('sets the trigram floor from the lookup threshold: 0.3 for low ones, rising with it', () => {
    expect([0, 50, 60].map(trigramFloor)).toEqual([0.3, 0.3, 0.3]);
    expect(trigramFloor(75)).toBe(0.38);
    expect(trigramFloor(100)).toBeLessThan(0.9);
    for (let th = 1; th <= 100; th++) expect(trigramFloor(th)).toBeGreaterThanOrEqual(trigramFloor(th - 1));
  });

  it('widens to the floor when the narrow pass finds too few candidates (a near miss under its similarity)', async () => {
    // 'nite owl' scores 67 against 'night owl' with a trigram similarity of 0.46: under NARROW_FLOOR, over the floor.
    await call('POST', '/api/v1/tm', { sourceLang: 'en', targetLang: 'fr', source: 'night owl', target: 'oiseau' });
    const lookup = (threshold: number) =>
      t.call({
        method: 'POST',
        url: '/api/v1/tm/lookup',
        as: admin,
        site: 'main',
        payload: { query: 'nite owl', sourceLang: 'en', targetLang: 'fr', threshold },
      });
    expect(NARROW_FLOOR).toBeGreaterThan(0.46);
    expect((await lookup(60)).json().data.match).toMatchObject({ source: 'night owl', score: 67 });
    expect((await lookup(70)).json().data.match).toBeNull();
  });

  it('keeps every near miss of a sentence (a word edited or replaced) over the floor of its score', async () => {
    const vocabulary = fc.constantFrom(...words, 'sentence', 'number', 'the', 'of', 'report', 'council', 'approved');
    const edit = fc.record({
      sentence: fc.uniqueArray(vocabulary, { minLength: 5, maxLength: 14 }),
      at: fc.nat(),
      replacement: fc.oneof(vocabulary, fc.stringMatching(/^[a-z]{2,9}$/)),
      drop: fc.boolean(),
    });
    const pairs = fc.sample(edit, { numRuns: 2000, seed: 1989 }).map(({ sentence, at, replacement, drop }) => {
      const edited = [...sentence];
      const i = at % edited.length;
      const w = edited[i]!;
      edited[i] = drop && w.length > 3 ? w.slice(0, 1) + w.slice(2) : replacement;
      return [sentence.join(' '), edited.join(' ')] as const;
    });
    const owner = t.deps.database.owner as Kysely<DB>;
    const ext = sql.id(await extensionSchema(owner, 'pg_trgm'));
    const r = await sql<{ a: string; b: string; sim: number }>`
      select a, b, ${ext}.similarity(a, b) as sim
      from unnest(${pairs.map((p) => p[0])}::text[], ${pairs.map((p) => p[1])}::text[]) as k(a, b)`.execute(owner);
    let scored = 0;
    for (const row of r.rows) {
      const score = matchScore(row.a, row.b);
      if (score < 60) continue;
      scored++;
      expect(row.sim, `${row.a} → ${row.b} (score ${score})`).toBeGreaterThanOrEqual(trigramFloor(score));
    }
    expect(scored).toBeGreaterThan(1000);
  });
});
