import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';

let t: TestApp;
let admin: string;
const call = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown, site = 'main') =>
  t.call({ method, url, payload: payload as object, as: admin, site });
const rel: Record<string, string> = {};

/** authors ← articles.author (restrict), articles.editor (set null), articles.owner (required); tags via a junction. */
async function seed(site: string) {
  const field = (c: string, f: string, type: string, extra = {}) =>
    call('POST', `/api/v1/fields/${c}`, { field: f, type, ...extra }, site);
  for (const c of ['authors', 'articles', 'tags', 'article_tags', 'notes'])
    await call('POST', '/api/v1/collections', { name: c }, site);
  await field('authors', 'name', 'string');
  await field('articles', 'title', 'string');
  await field('articles', 'author', 'string');
  await field('articles', 'editor', 'string');
  await field('articles', 'owner', 'string', { required: true });
  await field('articles', 'tags', 'json');
  await field('article_tags', 'articles_id', 'string');
  await field('article_tags', 'tags_id', 'string');
  await field('tags', 'label', 'string');
  await field('notes', 'about', 'json');
  await field('notes', 'lead', 'string', { unique: true });
  const relation = async (key: string, body: object) => {
    const res = await call('POST', '/api/v1/relations', body, site);
    expect(res.statusCode, res.body).toBe(201);
    if (site === 'main') rel[key] = res.json().data.id;
  };
  await relation('author', {
    kind: 'm2o',
    collection: 'articles',
    field: 'author',
    target: 'authors',
    onDelete: 'restrict',
  });
  await relation('editor', {
    kind: 'm2o',
    collection: 'articles',
    field: 'editor',
    target: 'authors',
    onDelete: 'set null',
  });
  await relation('owner', {
    kind: 'm2o',
    collection: 'articles',
    field: 'owner',
    target: 'authors',
    onDelete: 'cascade',
  });
  await relation('tags', {
    kind: 'm2m',
    collection: 'articles',
    field: 'tags',
    target: 'tags',
    junctionCollection: 'article_tags',
  });
  await relation('about', { kind: 'm2a', collection: 'notes', field: 'about' });
  await relation('lead', { kind: 'm2o', collection: 'notes', field: 'lead', target: 'authors' });
}

beforeAll(async () => {
  t = await createTestApp();
  admin = await t.setup();
  await call('POST', '/api/v1/sites', { id: 'other', name: 'Other' });
  for (const site of ['main', 'other']) await seed(site);
  const post = (c: string, body: object, site = 'main') => call('POST', `/api/v1/items/${c}`, body, site);
  await post('authors', [
    { id: 'ada', name: 'Ada' },
    { id: 'bob', name: 'Bob' },
    { id: 'cy', name: 'Cy' },
  ]);
  await post('articles', [
    { id: 'a1', title: 'One', author: 'ada', editor: 'ada', owner: 'ada' },
    { id: 'a2', title: 'Two', author: 'ada', owner: 'bob' },
    { id: 'a3', title: 'Three', editor: 'ada', owner: 'ada' },
  ]);
  await post('tags', [{ id: 't1', label: 'news' }]);
  await post('article_tags', [{ id: 'j1', articles_id: 'a1', tags_id: 't1' }]);
  await post('notes', [
    {
      id: 'n1',
      about: [
        { collection: 'authors', item: 'ada' },
        { collection: 'tags', item: 't1' },
      ],
      lead: 'ada',
    },
    { id: 'n2', about: [{ collection: 'authors', item: 'ada' }] },
  ]);
  // Site "other" points at its own "ada": never counted or changed from site main.
  await post('authors', { id: 'ada', name: 'Other Ada' }, 'other');
  await post('articles', { id: 'x1', title: 'X', author: 'ada', editor: 'ada', owner: 'ada' }, 'other');
});
afterAll(() => t.close());

const get = async (c: string, id: string) => (await call('GET', `/api/v1/items/${c}/${id}`)).json().data;
const resolve = (body: object, id = 'ada') => call('POST', `/api/v1/items/authors/${id}/resolve-dependents`, body);

describe('dependents', () => {
  it('lists every relation with live items pointing at the item, with counts and samples', async () => {
    const res = await call('GET', '/api/v1/items/authors/ada/dependents');
    expect(res.statusCode).toBe(200);
    const { blocking, dependents } = res.json().data;
    expect(blocking).toBe(true);
    const by = Object.fromEntries(dependents.map((d: { relation: string }) => [d.relation, d]));
    expect(by[rel.author!]).toEqual({
      relation: rel.author,
      collection: 'articles',
      field: 'author',
      onDelete: 'restrict',
      count: 2,
      sample: ['a1', 'a2'],
    });
    expect(by[rel.editor!]).toMatchObject({ count: 2, sample: ['a1', 'a3'], onDelete: 'set null' });
    expect(by[rel.about!]).toMatchObject({ collection: 'notes', field: 'about', count: 2 });
    const tag = (await call('GET', '/api/v1/items/tags/t1/dependents')).json().data;
    expect(
      tag.dependents.map((d: { collection: string; field: string }) => `${d.collection}.${d.field}`).sort(),
    ).toEqual(['article_tags.tags_id', 'notes.about']);
    expect(tag.blocking).toBe(false);
  });

  it('blocks the delete of a restricted item with 409 DEPENDENT_RECORDS_EXIST and its dependents', async () => {
    const res = await call('DELETE', '/api/v1/items/authors/ada');
    expect(res.statusCode).toBe(409);
    const body = res.json();
    expect(body.errors[0].code).toBe('DEPENDENT_RECORDS_EXIST');
    expect(body.dependents.some((d: { relation: string }) => d.relation === rel.author)).toBe(true);
    expect(body.errors[0].extensions.dependents).toEqual(body.dependents);
    expect(await get('authors', 'ada')).toMatchObject({ name: 'Ada' });
  });

  it('answers 404 for an unknown item or a relation that does not point at the collection', async () => {
    expect((await call('GET', '/api/v1/items/authors/nobody/dependents')).json().errors[0].code).toBe('NOT_FOUND');
    expect((await resolve({ action: 'delete', relation: rel.tags })).statusCode).toBe(404);
    expect((await resolve({ action: 'delete', relation: 'nope' })).json().errors[0].path).toEqual(['relation']);
    expect((await resolve({ action: 'explode', relation: rel.author })).statusCode).toBe(400);
  });
});

describe('resolve-dependents', () => {
  it('refuses set_null on a required field with 409 FIELD_REQUIRED and changes nothing', async () => {
    const res = await resolve({ action: 'set_null', relation: rel.owner });
    expect(res.statusCode).toBe(409);
    expect(res.json().errors[0].code).toBe('FIELD_REQUIRED');
    expect((await get('articles', 'a1')).owner).toBe('ada');
  });

  it('sets a nullable reference to null, and removes the entry from an m2a list', async () => {
    const res = await resolve({ action: 'set_null', relation: rel.editor });
    expect(res.json().data).toMatchObject({ action: 'set_null', affected: 2, ids: ['a1', 'a3'] });
    expect((await get('articles', 'a1')).editor).toBeNull();
    expect((await get('articles', 'a3')).editor).toBeNull();
    await resolve({ action: 'set_null', relation: rel.about });
    expect((await get('notes', 'n1')).about).toEqual([{ collection: 'tags', item: 't1' }]);
    expect((await get('notes', 'n2')).about).toEqual([]);
    const other = (await call('GET', '/api/v1/items/articles/x1', undefined, 'other')).json().data;
    expect(other.editor).toBe('ada');
  });

  it('refuses a reassign to a missing, other-site or same item with 422 INVALID_TARGET', async () => {
    await call('POST', '/api/v1/items/authors', { id: 'zed', name: 'Only elsewhere' }, 'other');
    for (const newTargetId of ['ghost', 'zed', 'ada', undefined]) {
      const res = await resolve({ action: 'reassign', relation: rel.author, newTargetId });
      expect(res.statusCode, String(newTargetId)).toBe(422);
      expect(res.json().errors[0].code).toBe('INVALID_TARGET');
    }
    expect((await get('articles', 'a2')).author).toBe('ada');
  });

  it('answers 409 when a reassign would break a unique field, and changes nothing', async () => {
    await call('POST', '/api/v1/items/notes', { id: 'n3', lead: 'bob' });
    const res = await resolve({ action: 'reassign', relation: rel.lead, newTargetId: 'bob' });
    expect(res.statusCode).toBe(409);
    expect((await get('notes', 'n1')).lead).toBe('ada');
  });

  it('reassigns every reference, after which the item can be deleted', async () => {
    const res = await resolve({ action: 'reassign', relation: rel.author, newTargetId: 'bob' });
    expect(res.json().data.affected).toBe(2);
    expect((await get('articles', 'a1')).author).toBe('bob');
    expect((await get('articles', 'a2')).author).toBe('bob');
    expect((await call('GET', '/api/v1/items/authors/ada/dependents')).json().data.blocking).toBe(false);
    expect((await call('DELETE', '/api/v1/items/authors/ada')).statusCode).toBe(204);
    expect((await call('GET', '/api/v1/items/authors/ada', undefined, 'other')).statusCode).toBe(200);
  });

  it('deletes the referencing items softly, or hard out of the read model', async () => {
    const soft = await call('POST', '/api/v1/items/tags/t1/resolve-dependents', {
      action: 'delete',
      relation: rel.tags,
    });
    expect(soft.json().data.ids).toEqual(['j1']);
    expect((await call('GET', '/api/v1/items/article_tags/j1')).statusCode).toBe(404);
    const rows = async (id: string) =>
      (
        await sql<{
          n: number;
        }>`select count(*)::int as n from item_documents where site_id = 'main' and id = ${id}`.execute(
          t.deps.database.owner,
        )
      ).rows[0]!.n;
    expect(await rows('j1')).toBe(1);
    const hard = await resolve({ action: 'delete', relation: rel.owner, hard: true }, 'bob');
    expect(hard.json().data.ids).toEqual(['a2']);
    expect(await rows('a2')).toBe(0);
    expect((await resolve({ action: 'set_null', relation: rel.editor, hard: true }, 'bob')).statusCode).toBe(400);
  });
});
