import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';

let t: TestApp;
let admin: string;
const call = (method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE', url: string, payload?: unknown, site = 'main') =>
  t.call({ method, url, payload: payload as object, as: admin, site });

beforeAll(async () => {
  t = await createTestApp();
  admin = await t.setup();
  await call('POST', '/api/v1/sites', { id: 'other', name: 'Other' });
  for (const site of ['main', 'other']) {
    await call('POST', '/api/v1/collections', { name: 'people' }, site);
    await call('POST', '/api/v1/fields/people', { field: 'email', type: 'string', unique: true }, site);
    await call('POST', '/api/v1/fields/people', { field: 'age', type: 'integer' }, site);
    await call('POST', '/api/v1/fields/people', { field: 'bio', type: 'text' }, site);
  }
});
afterAll(() => t.close());

const indexes = async () =>
  (
    await sql<{ indexdef: string }>`select indexdef from pg_indexes where tablename = 'item_documents'
      and schemaname = current_schema()`.execute(t.deps.db)
  ).rows.map((r) => r.indexdef);

describe('unique fields', () => {
  it('refuses a duplicate value with 409 CONFLICT naming the field, per site, on create, patch and replace', async () => {
    const first = await call('POST', '/api/v1/items/people', { email: 'a@example.com' });
    expect(first.statusCode).toBe(201);
    const dup = await call('POST', '/api/v1/items/people', { email: 'a@example.com' });
    expect(dup.statusCode).toBe(409);
    expect(dup.json().errors[0]).toMatchObject({ code: 'CONFLICT', path: ['email'] });
    expect(dup.json().errors[0].message).not.toContain('a@example.com');
    expect((await call('POST', '/api/v1/items/people', { email: 'a@example.com' }, 'other')).statusCode).toBe(201);
    const second = (await call('POST', '/api/v1/items/people', { email: 'b@example.com' })).json().data;
    expect((await call('PATCH', `/api/v1/items/people/${second.id}`, { email: 'a@example.com' })).statusCode).toBe(409);
    expect((await call('PUT', `/api/v1/items/people/${second.id}`, { email: 'a@example.com' })).statusCode).toBe(409);
    expect((await call('GET', `/api/v1/items/people/${second.id}`)).json().data.email).toBe('b@example.com');
    // A soft-deleted item frees its value.
    expect((await call('DELETE', `/api/v1/items/people/${first.json().data.id}`)).statusCode).toBe(204);
    expect((await call('PATCH', `/api/v1/items/people/${second.id}`, { email: 'a@example.com' })).statusCode).toBe(200);
  });

  it('makes an existing field unique only when its values already are', async () => {
    await call('POST', '/api/v1/items/people', [{ bio: 'same' }, { bio: 'same' }]);
    const res = await call('PATCH', '/api/v1/fields/people/bio', { unique: true });
    expect(res.statusCode).toBe(409);
    expect((await call('GET', '/api/v1/fields/people/bio')).json().data.unique).toBe(false);
    expect((await call('PATCH', '/api/v1/fields/people/age', { unique: true })).statusCode).toBe(200);
    expect((await indexes()).filter((d) => d.includes('UNIQUE') && d.includes("'age'"))).toHaveLength(2 - 1);
    expect((await call('PATCH', '/api/v1/fields/people/age', { unique: false })).statusCode).toBe(200);
    expect((await indexes()).some((d) => d.includes('UNIQUE') && d.includes("'age'"))).toBe(false);
  });
});

describe('expression indexes', () => {
  it('indexes ordered fields per site and collection with the expression the queries use, and drops them with the field', async () => {
    const defs = await indexes();
    const age = defs.filter((d) => d.includes("'age'") && !d.includes('UNIQUE'));
    expect(age).toHaveLength(2);
    expect(age.join('\n')).toContain("((data ->> 'age'::text))::numeric");
    expect(defs.some((d) => d.includes("'bio'") && !d.includes('UNIQUE'))).toBe(false);
    await call('POST', '/api/v1/items/people', { email: 'x@example.com', age: 40 }, 'other');
    expect((await call('DELETE', '/api/v1/fields/people/age', undefined, 'other')).statusCode).toBe(204);
    expect((await indexes()).filter((d) => d.includes("'age'") && !d.includes('UNIQUE'))).toHaveLength(1);
    const list = (
      await call('GET', '/api/v1/items/people?filter[email][_eq]=x@example.com', undefined, 'other')
    ).json();
    expect(list.data[0]).not.toHaveProperty('age');
  });
});

describe('schema cache', () => {
  it('knows a field added or removed after items were read on the very next request', async () => {
    expect((await call('GET', '/api/v1/items/people?filter[nick][_eq]=x')).statusCode).toBe(400);
    await call('POST', '/api/v1/fields/people', { field: 'nick', type: 'string' });
    expect((await call('POST', '/api/v1/items/people', { nick: 'x' })).statusCode).toBe(201);
    expect((await call('GET', '/api/v1/items/people?filter[nick][_eq]=x')).json().data).toHaveLength(1);
    await call('DELETE', '/api/v1/fields/people/nick');
    expect((await call('GET', '/api/v1/items/people?filter[nick][_eq]=x')).statusCode).toBe(400);
    expect((await call('POST', '/api/v1/items/people', { nick: 'y' })).statusCode).toBe(400);
  });
});

describe('bulk create with unique values', () => {
  it('writes none of the array when two of its items share a unique value', async () => {
    const res = await call('POST', '/api/v1/items/people', [
      { email: 'bulk1@example.com' },
      { email: 'dup@example.com' },
      { email: 'dup@example.com' },
    ]);
    expect(res.statusCode).toBe(409);
    expect(res.json().errors[0].path).toEqual(['email']);
    const list = await call('GET', '/api/v1/items/people?filter[email][_eq]=bulk1@example.com');
    expect(list.json().data).toEqual([]);
  });
});
