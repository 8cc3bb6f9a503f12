import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';

/**
 * Filters through relations against a plain in-memory reading of the same data: a path through a relation
 * matches when some related live item of the same site matches.
 */
let t: TestApp;
let admin: string;
const call = (method: 'GET' | 'POST' | 'DELETE', url: string, payload?: unknown) =>
  t.call({ method, url, payload: payload as object, as: admin, site: 'main' });

interface Author {
  id: string;
  name: string;
  rank: number;
}
interface Article {
  id: string;
  author: string | null;
}
interface Comment {
  id: string;
  article: string;
  score: number;
}
const data = { authors: [] as Author[], articles: [] as Article[], comments: [] as Comment[] };

beforeAll(async () => {
  t = await createTestApp();
  admin = await t.setup();
  for (const c of ['authors', 'articles', 'comments']) await call('POST', '/api/v1/collections', { name: c });
  await call('POST', '/api/v1/fields/authors', { field: 'name', type: 'string' });
  await call('POST', '/api/v1/fields/authors', { field: 'rank', type: 'integer' });
  await call('POST', '/api/v1/fields/articles', { field: 'author', type: 'string' });
  await call('POST', '/api/v1/fields/articles', { field: 'comments', type: 'json' });
  await call('POST', '/api/v1/fields/comments', { field: 'article', type: 'string' });
  await call('POST', '/api/v1/fields/comments', { field: 'score', type: 'integer' });
  await call('POST', '/api/v1/relations', { kind: 'm2o', collection: 'articles', field: 'author', target: 'authors' });
  await call('POST', '/api/v1/relations', {
    kind: 'm2o',
    collection: 'comments',
    field: 'article',
    target: 'articles',
  });
  await call('POST', '/api/v1/relations', {
    kind: 'o2m',
    collection: 'articles',
    field: 'comments',
    target: 'comments',
    targetField: 'article',
  });
  const [authors, articles, comments] = fc.sample(
    fc.tuple(
      fc.uniqueArray(fc.record({ name: fc.constantFrom('ada', 'bob', 'Cy', 'dee', 'ada b'), rank: fc.nat(5) }), {
        minLength: 5,
        maxLength: 8,
        selector: (a) => `${a.name}${a.rank}`,
      }),
      fc.array(fc.option(fc.nat(9), { nil: null }), { minLength: 20, maxLength: 30 }),
      fc.array(fc.record({ article: fc.nat(29), score: fc.nat(9) }), { minLength: 10, maxLength: 40 }),
    ),
    { numRuns: 1, seed: 7 },
  )[0]!;
  data.authors = authors.map((a, i) => ({ id: `au${i}`, ...a }));
  // Some articles point at authors that do not exist (dangling ids never match).
  data.articles = articles.map((a, i) => ({ id: `ar${i}`, author: a === null ? null : `au${a}` }));
  data.comments = comments
    .filter((c) => c.article < data.articles.length)
    .map((c, i) => ({ id: `co${i}`, article: `ar${c.article}`, score: c.score }));
  await call('POST', '/api/v1/items/authors', data.authors);
  await call('POST', '/api/v1/items/articles', data.articles);
  await call('POST', '/api/v1/items/comments', data.comments);
  // A deleted author and comment no longer count.
  await call('DELETE', '/api/v1/items/authors/au0');
  data.authors = data.authors.filter((a) => a.id !== 'au0');
  await call('DELETE', `/api/v1/items/comments/co0`);
  data.comments = data.comments.filter((c) => c.id !== 'co0');
});
afterAll(() => t.close());

type Op = '_eq' | '_neq' | '_gt' | '_lte' | '_contains' | '_in';
const test = (op: Op, actual: unknown, v: unknown): boolean => {
  if (actual === null || actual === undefined) return false;
  switch (op) {
    case '_eq':
      return actual === v;
    case '_neq':
      return actual !== v;
    case '_gt':
      return (actual as number) > (v as number);
    case '_lte':
      return (actual as number) <= (v as number);
    case '_contains':
      return String(actual).includes(String(v));
    case '_in':
      return (v as unknown[]).includes(actual);
  }
};

const authorClause = fc.oneof(
  fc.record({
    field: fc.constant('name' as const),
    op: fc.constantFrom<Op>('_eq', '_neq', '_contains'),
    v: fc.constantFrom('ada', 'bob', 'Cy', 'a', 'zz'),
  }),
  fc.record({ field: fc.constant('rank' as const), op: fc.constantFrom<Op>('_gt', '_lte', '_eq'), v: fc.nat(5) }),
  fc.record({ field: fc.constant('name' as const), op: fc.constant<Op>('_in'), v: fc.subarray(['ada', 'bob', 'dee']) }),
);
const commentClause = fc.record({ op: fc.constantFrom<Op>('_gt', '_lte', '_eq', '_neq'), v: fc.nat(9) });

describe('filters through relations', () => {
  it('an m2o path matches the articles whose author matches', async () => {
    await fc.assert(
      fc.asyncProperty(authorClause, async ({ field, op, v }) => {
        const res = await call(
          'GET',
          `/api/v1/items/articles?limit=200&fields=id&sort=id&filter=${encodeURIComponent(JSON.stringify({ [`author.${field}`]: { [op]: v } }))}`,
        );
        expect(res.statusCode, res.body).toBe(200);
        const byId = new Map(data.authors.map((a) => [a.id, a]));
        const expected = data.articles
          .filter((a) => a.author !== null && byId.has(a.author) && test(op, byId.get(a.author)![field], v))
          .map((a) => a.id)
          .sort();
        expect(res.json().data.map((x: { id: string }) => x.id)).toEqual(expected);
      }),
      { numRuns: 25 },
    );
  });

  it('an o2m path matches the articles with some matching comment, combined with _or on the m2o', async () => {
    await fc.assert(
      fc.asyncProperty(commentClause, authorClause, async (c, a) => {
        const filter = { _or: [{ comments: { score: { [c.op]: c.v } } }, { [`author.${a.field}`]: { [a.op]: a.v } }] };
        const res = await call(
          'GET',
          `/api/v1/items/articles?limit=200&fields=id&sort=id&filter=${encodeURIComponent(JSON.stringify(filter))}`,
        );
        expect(res.statusCode, res.body).toBe(200);
        const byId = new Map(data.authors.map((x) => [x.id, x]));
        const expected = data.articles
          .filter(
            (ar) =>
              data.comments.some((co) => co.article === ar.id && test(c.op, co.score, c.v)) ||
              (ar.author !== null && byId.has(ar.author) && test(a.op, byId.get(ar.author)![a.field], a.v)),
          )
          .map((x) => x.id)
          .sort();
        expect(res.json().data.map((x: { id: string }) => x.id)).toEqual(expected);
      }),
      { numRuns: 25 },
    );
  });
});
