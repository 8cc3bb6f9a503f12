import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';
import { createUser } from '../../../test/setup/users.ts';
import { generate } from './generate.ts';
import { manifestReader } from './typegen.read.ts';
import type { ManifestCollection, TypegenManifest } from './typegen.manifest.ts';
import { compile, BAD_USAGE, GOOD_USAGE, diagnosticsByLine, expectedByLine } from './typegen-usage.fixture.ts';

let t: TestApp;
let admin: string;
let viewer: string;
let stranger: string;

const call = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown, as = admin, site = 'main') =>
  t.call({ method, url, payload: payload as object, as, site });
const ok = async (method: 'POST' | 'PATCH', url: string, payload: unknown) => {
  const res = await call(method, url, payload);
  if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
  return res;
};
const field = (collection: string, body: Record<string, unknown>) => ok('POST', `/api/v1/fields/${collection}`, body);
const manifest = async (query = '', as = admin): Promise<TypegenManifest> => {
  const res = await call('GET', `/api/v1/typegen/schema${query}`, undefined, as);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data;
};
const collectionOf = (m: TypegenManifest, name: string): ManifestCollection => {
  const c = m.collections.find((x) => x.name === name);
  if (!c) throw new Error(`no collection ${name}`);
  return c;
};
const fieldOf = (m: TypegenManifest, collection: string, name: string) =>
  collectionOf(m, collection).fields.find((f) => f.name === name);

/** Every field type and every relation kind, through the HTTP API. */
async function buildSchema(): Promise<void> {
  for (const body of [
    { name: 'authors' },
    { name: 'articles' },
    { name: 'tags', primaryKeyType: 'uuid' },
    { name: 'article_tags' },
    { name: 'counters', primaryKeyType: 'integer' },
    // Awkward names: PascalCase collisions, a reserved type name, another collection's key type name.
    { name: 'a_b' },
    { name: 'a__b' },
    { name: 'schema' },
    { name: 'articles_id' },
  ])
    await ok('POST', '/api/v1/collections', body);
  await field('authors', { field: 'name', type: 'string', required: true });
  await field('authors', { field: 'articles', type: 'json' });
  await field('articles', { field: 'title', type: 'string', required: true });
  for (const type of ['text', 'hash', 'csv', 'integer', 'bigInteger', 'decimal', 'boolean', 'json', 'uuid'])
    await field('articles', { field: `f_${type.toLowerCase()}`, type });
  for (const type of ['date', 'datetime', 'time', 'timestamp', 'geometry'])
    await field('articles', { field: `f_${type}`, type });
  await field('articles', { field: 'tone', type: 'enum', choices: ['calm', 'loud', 'it\'s \\ "odd"'] });
  await field('articles', { field: 'secret', type: 'text', encrypted: true });
  await field('articles', { field: 'locked', type: 'string', readonly: true });
  await field('articles', { field: 'strict_count', type: 'integer', nullable: false });
  await field('articles', { field: 'author', type: 'string' });
  await field('articles', { field: 'cover', type: 'string' });
  await field('articles', { field: 'tags', type: 'json' });
  await field('articles', { field: 'blocks', type: 'json' });
  await field('article_tags', { field: 'articles_id', type: 'string' });
  await field('article_tags', { field: 'tags_id', type: 'uuid' });
  await field('a_b', { field: 'x', type: 'string' });
  await field('a__b', { field: 'y', type: 'string' });
  await field('schema', { field: 'z', type: 'string' });
  const rel = (body: Record<string, unknown>) => ok('POST', '/api/v1/relations', body);
  await rel({ kind: 'm2o', collection: 'articles', field: 'author', target: 'authors' });
  await rel({ kind: 'm2o', collection: 'articles', field: 'cover', target: 'files' });
  await rel({ kind: 'o2m', collection: 'authors', field: 'articles', target: 'articles', targetField: 'author' });
  await rel({ kind: 'm2m', collection: 'articles', field: 'tags', target: 'tags', junctionCollection: 'article_tags' });
  await rel({ kind: 'm2a', collection: 'articles', field: 'blocks' });
}

beforeAll(async () => {
  t = await createTestApp({ env: { ENCRYPTION_KEY: randomBytes(32).toString('base64') } });
  admin = await t.setup();
  await call('POST', '/api/v1/sites', { id: 'other', name: 'Other' });
  viewer = await createUser(t, 'viewer@example.com', 'Viewer-pass-1234', { main: 'viewer' });
  stranger = await createUser(t, 'stranger@example.com', 'Stranger-pass-1234', { other: 'admin' });
  await buildSchema();
}, 60_000);
afterAll(() => t.close());

describe('GET /api/v1/typegen/schema', () => {
  it('answers manifest version 2 with system fields beside the user fields', async () => {
    const m = await manifest();
    expect(m.version).toBe(2);
    expect(m.site).toBe('main');
    expect(m.collections.map((c) => c.name)).toEqual([
      'a__b',
      'a_b',
      'article_tags',
      'articles',
      'articles_id',
      'authors',
      'counters',
      'files',
      'schema',
      'tags',
    ]);
    const articles = collectionOf(m, 'articles');
    expect(articles).toMatchObject({ primaryKey: 'id', primaryKeyField: 'id', primaryKeyType: 'nanoid' });
    expect(articles.fields.map((f) => f.name).slice(0, 2)).toEqual(['id', 'title']);
    expect(articles.fields.map((f) => f.name).slice(-8)).toEqual([
      'status',
      'sort',
      'created_at',
      'created_by',
      'updated_at',
      'updated_by',
      'deleted_at',
      'deleted_by',
    ]);
    expect(fieldOf(m, 'articles', 'id')).toEqual({
      name: 'id',
      type: 'string',
      required: true,
      nullable: false,
      readonly: true,
      generated: true,
      system: true,
      encrypted: false,
      primaryKey: true,
      branded: 'ArticlesId',
    });
    expect(fieldOf(m, 'articles', 'title')).toEqual({
      name: 'title',
      type: 'string',
      required: true,
      nullable: false,
      readonly: false,
      generated: false,
      system: false,
      encrypted: false,
      primaryKey: false,
    });
    expect(fieldOf(m, 'articles', 'tone')).toMatchObject({ type: 'enum', choices: ['calm', 'loud', 'it\'s \\ "odd"'] });
    expect(fieldOf(m, 'articles', 'secret')).toMatchObject({ type: 'text', encrypted: true, nullable: true });
    expect(fieldOf(m, 'articles', 'locked')).toMatchObject({ readonly: true, generated: false });
    expect(fieldOf(m, 'articles', 'strict_count')).toMatchObject({ nullable: false, required: false });
    expect(fieldOf(m, 'articles', 'created_at')).toMatchObject({
      type: 'datetime',
      readonly: true,
      generated: true,
      system: true,
      required: true,
    });
    expect(fieldOf(m, 'articles', 'deleted_at')).toMatchObject({ required: false, nullable: true, generated: true });
    expect(fieldOf(m, 'articles', 'author')).toMatchObject({ kind: 'm2o', target: 'authors', branded: 'AuthorsId' });
    expect(fieldOf(m, 'articles', 'cover')).toMatchObject({ kind: 'm2o', target: 'files', branded: 'FilesId' });
    expect(fieldOf(m, 'authors', 'articles')).toMatchObject({ kind: 'o2m', target: 'articles' });
    expect(fieldOf(m, 'articles', 'tags')).toMatchObject({ kind: 'm2m', target: 'tags', branded: 'TagsId' });
    expect(fieldOf(m, 'articles', 'blocks')).toMatchObject({ kind: 'm2a' });
    expect(fieldOf(m, 'articles', 'blocks')).not.toHaveProperty('target');
    expect(fieldOf(m, 'counters', 'id')).toMatchObject({ type: 'integer', generated: false, branded: 'CountersId' });
    expect(fieldOf(m, 'tags', 'id')).toMatchObject({ type: 'uuid', generated: true });
    // Colliding names are told apart in name order; reserved and taken names get a number.
    expect(fieldOf(m, 'a__b', 'id')!.branded).toBe('ABId');
    expect(fieldOf(m, 'a_b', 'id')!.branded).toBe('AB2Id');
    expect(fieldOf(m, 'schema', 'id')!.branded).toBe('Schema2Id');
    expect(fieldOf(m, 'articles_id', 'id')!.branded).toBe('ArticlesId2Id');
    const m2m = articles.relations.find((r) => r.kind === 'm2m')!;
    expect(m2m).toMatchObject({
      collection: 'articles',
      field: 'tags',
      target: 'tags',
      junctionCollection: 'article_tags',
      oneCollection: 'articles',
      oneField: 'tags',
      manyCollection: 'article_tags',
      manyField: null,
    });
    expect(articles.relations.map((r) => r.kind).sort()).toEqual(['m2a', 'm2m', 'm2o', 'm2o', 'o2m']);
    expect(collectionOf(m, 'article_tags').relations.map((r) => r.kind)).toEqual(['m2m']);
  });

  it('keeps the collections include names, less those exclude names', async () => {
    const m = await manifest('?include=articles,authors,,tags&exclude=tags');
    expect(m.collections.map((c) => c.name)).toEqual(['articles', 'authors']);
    // A filter never renames a key type.
    expect(fieldOf(await manifest('?include=a_b'), 'a_b', 'id')!.branded).toBe('AB2Id');
    expect((await manifest('?exclude=files')).collections.map((c) => c.name)).not.toContain('files');
  });

  it('lets a member who may read the schema read it, and nobody else', async () => {
    expect((await manifest('', viewer)).collections.length).toBeGreaterThan(0);
    const anonymous = await t.call({ method: 'GET', url: '/api/v1/typegen/schema', site: 'main' });
    expect(anonymous.statusCode).toBe(401);
    const foreign = await call('GET', '/api/v1/typegen/schema', undefined, stranger, 'main');
    expect(foreign.statusCode).toBe(403);
    expect(foreign.body).not.toContain('articles');
    const own = (await manifest('', admin)).collections.map((c) => c.name);
    const theirs = await call('GET', '/api/v1/typegen/schema', undefined, stranger, 'other');
    expect(theirs.json().data.collections.map((c: { name: string }) => c.name)).toEqual(['files']);
    expect(own).toContain('articles');
  });

  it('answers bad and hostile queries with 400 naming the place, never 5xx', async () => {
    const cases: [string, string[]][] = [
      ['?include=__proto__', ['query', 'include', '0']],
      ['?include=articles,constructor', ['query', 'include', '1']],
      ['?exclude=prototype', ['query', 'exclude', '0']],
      [`?include=${Array.from({ length: 10_000 }, () => 'a').join(',')}`, ['query', 'include']],
      ['?include=arti%00cles', ['query', 'include']],
      ['?include=nope', ['query', 'include', '0']],
      ['?exclude=authors,nope', ['query', 'exclude', '1']],
      ['?asOf=yesterday', ['query', 'asOf']],
      ['?asOf=2024-13-45T99:00:00Z', ['query', 'asOf']],
      ['?include=a&include=b', ['query', 'include']],
      ['?other=1', ['query', 'other']],
    ];
    for (const [query, path] of cases) {
      const res = await call('GET', `/api/v1/typegen/schema${query}`);
      expect(res.statusCode, query).toBe(400);
      expect(res.json().errors[0], query).toMatchObject({ code: 'VALIDATION_FAILED', path });
    }
    expect((await call('GET', '/api/v1/typegen/schema?include=nope')).json().errors[0].extensions).toMatchObject({
      reason: 'unknown_collection',
    });
  });

  it('answers the schema as it was at asOf, and a new field at once (no stale cache)', async () => {
    const before = await manifest();
    await new Promise((r) => setTimeout(r, 30));
    const asOf = new Date().toISOString();
    await new Promise((r) => setTimeout(r, 30));
    await field('authors', { field: 'bio', type: 'text' });
    const now = await manifest();
    expect(fieldOf(now, 'authors', 'bio')).toMatchObject({ type: 'text' });
    expect(fieldOf(before, 'authors', 'bio')).toBeUndefined();
    const then = await manifest(`?asOf=${encodeURIComponent(asOf)}`);
    expect(fieldOf(then, 'authors', 'bio')).toBeUndefined();
    expect(then.collections).toEqual(before.collections);
    // The time before any schema change: only the system collection.
    expect((await manifest('?asOf=2000-01-01T00:00:00Z')).collections.map((c) => c.name)).toEqual(['files']);
    // A name that did not exist then is unknown then.
    const gone = await call('GET', `/api/v1/typegen/schema?asOf=2000-01-01T00:00:00Z&include=articles`);
    expect(gone.statusCode).toBe(400);
    await ok('PATCH', '/api/v1/fields/authors/bio', { required: true });
    expect(fieldOf(await manifest(), 'authors', 'bio')).toMatchObject({ required: true, nullable: false });
  });
});

describe('the manifest cache', () => {
  it('answers a repeated request from the cache, a changed schema and asOf requests never', async () => {
    const reader = manifestReader(t.deps.store);
    const all = { include: null, exclude: [] };
    const first = await reader.read('main', all);
    expect(await reader.read('main', { include: null, exclude: [] })).toBe(first);
    expect(await reader.read('main', { include: ['tags', 'authors'], exclude: [] })).toBe(
      await reader.read('main', { include: ['authors', 'tags', 'tags'], exclude: [] }),
    );
    expect(reader.cached).toBe(2);
    await reader.read('main', { ...all, asOf: new Date() });
    expect(reader.cached).toBe(2);
    await field('tags', { field: 'label', type: 'string' });
    const changed = await reader.read('main', all);
    expect(changed).not.toBe(first);
    expect(fieldOf(changed, 'tags', 'label')).toBeDefined();
    expect(reader.cached).toBe(3);
  });
});

describe('generated TypeScript', () => {
  let m: TypegenManifest;
  beforeAll(async () => {
    m = await manifest();
  });

  for (const format of ['single', 'per-collection'] as const) {
    for (const branded of [true, false]) {
      it(`(${format}, branded ${branded}) type-checks good usage and refuses bad usage`, async () => {
        const files = generate(m, { format, branded });
        const from = format === 'single' ? './gen/schema.js' : './gen/index.js';
        const result = await compile(files, { 'good.ts': GOOD_USAGE(from), 'bad.ts': BAD_USAGE(from) });
        expect(result.diagnostics('good.ts')).toEqual([]);
        for (const name of files.keys()) expect(result.diagnostics(`gen/${name}`), name).toEqual([]);
        const bad = diagnosticsByLine(result.raw('bad.ts'));
        expect(bad).toEqual(expectedByLine(BAD_USAGE(from), branded));
      }, 60_000);
    }
  }

  it('is deterministic', () => {
    for (const format of ['single', 'per-collection'] as const) {
      const a = generate(m, { format, branded: true });
      const shuffled = { ...m, collections: [...m.collections].reverse() };
      expect([...generate(shuffled, { format, branded: true })]).toEqual([...a]);
    }
  });
});
