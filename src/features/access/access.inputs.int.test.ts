import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';
import { createUser } from '../../../test/setup/users.ts';

let t: TestApp;
let admin: string;
let author: string;
let role: string;
const PASSWORD = 'Inputs-pass-2718!';
type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';
const call = (method: Method, url: string, payload?: object, as = admin, site = 'main') =>
  t.call({ method, url, as, site, ...(payload ? { payload } : {}) });
const ok = async (method: Method, url: string, payload?: object, as = admin, site = 'main') => {
  const res = await call(method, url, payload, as, site);
  expect(res.statusCode, res.body).toBeLessThan(300);
  return res.statusCode === 204 ? null : res.json();
};
const invalid = (res: { statusCode: number; json(): { errors: { code: string; path: string[] }[] } }) => {
  expect(res.statusCode).toBe(400);
  const [error] = res.json().errors;
  expect(error!.code).toBe('VALIDATION_FAILED');
  // Schema errors name the part of the request first; the rule checks name the body's field.
  return error!.path[0] === 'body' ? error!.path.slice(1) : error!.path;
};
const newPolicy = async (name: string) => (await ok('POST', '/api/v1/policies', { name })).data.id as string;
const rule = (policy: string, body: object) => call('POST', `/api/v1/policies/${policy}/permissions`, body);

beforeAll(async () => {
  t = await createTestApp();
  admin = await t.setup();
  await ok('POST', '/api/v1/collections', { name: 'notes' });
  await ok('POST', '/api/v1/fields/notes', { field: 'title', type: 'string' });
  await ok('POST', '/api/v1/fields/notes', { field: 'data', type: 'json' });
  role = (await ok('POST', '/api/v1/roles', { name: 'Author' })).data.id;
  author = await createUser(t, 'author@example.com', PASSWORD, { main: role });
  await ok('POST', '/api/v1/items/notes', [
    { id: 'n1', title: 'constructor' },
    { id: 'n2', title: 'toString' },
    { id: 'n3', title: 'plain' },
  ]);
});
afterAll(() => t.close());

/** `{ _and: [{ _and: [ … { title: { _eq: 'x' } } … ] }] }`, `depth` levels deep. */
const nestedAnd = (depth: number): object => {
  let f: object = { title: { _eq: 'x' } };
  for (let i = 0; i < depth; i++) f = { _and: [f] };
  return f;
};
/** The same as JSON text, written out by hand: serialising 5 000 levels would exhaust the test's own stack. */
const deepJson = (depth: number, open: string, close: string, inner: string) =>
  open.repeat(depth) + inner + close.repeat(depth);
const postRaw = (url: string, payload: string) =>
  t.call({ method: 'POST', url, as: admin, site: 'main', headers: { 'content-type': 'application/json' }, payload });

describe('POST /api/v1/policies/:id/permissions', () => {
  it('refuses conditions and validation nested 5 000 (or 40) deep with 400 naming the part', async () => {
    const policy = await newPolicy('deep');
    const url = `/api/v1/policies/${policy}/permissions`;
    for (const part of ['conditions', 'validation']) {
      const filter = deepJson(5000, '{"_and":[', ']}', '{"title":{"_eq":"x"}}');
      const path = invalid(await postRaw(url, `{"collection":"notes","action":"update","${part}":${filter}}`));
      expect(path[0]).toBe(part);
    }
    const nested = deepJson(5000, '{"title":', '}', '{"_eq":1}');
    expect(invalid(await postRaw(url, `{"collection":"notes","action":"read","conditions":${nested}}`))[0]).toBe(
      'conditions',
    );
    const below = deepJson(40, '{"_and":[', ']}', '{"title":{"_eq":"x"}}');
    expect(invalid(await postRaw(url, `{"collection":"notes","action":"read","conditions":${below}}`))[0]).toBe(
      'conditions',
    );
    const list = deepJson(5000, '[', ']', '1');
    const inList = `{"collection":"notes","action":"read","conditions":{"title":{"_in":${list}}}}`;
    expect(invalid(await postRaw(url, inList))[0]).toBe('conditions');
    expect((await ok('GET', url)).data).toEqual([]);
  });

  it('refuses a condition of more than 100 clauses and JSON paths deeper than 8', async () => {
    const policy = await newPolicy('wide');
    const wide = { _or: Array.from({ length: 101 }, (_, i) => ({ title: { _eq: `t${i}` } })) };
    expect(invalid(await rule(policy, { collection: 'notes', action: 'read', conditions: wide }))[0]).toBe(
      'conditions',
    );
    const json = { ['data.' + Array.from({ length: 9 }, (_, i) => `k${i}`).join('.')]: { _eq: 1 } };
    expect(invalid(await rule(policy, { collection: 'notes', action: 'read', conditions: json }))[0]).toBe(
      'conditions',
    );
    expect((await rule(policy, { collection: 'notes', action: 'read', conditions: nestedAnd(6) })).statusCode).toBe(
      201,
    );
  });

  it('refuses prototype member names as collection, fields, condition keys and preset keys', async () => {
    const policy = await newPolicy('names');
    for (const name of ['constructor', 'prototype', 'toString']) {
      expect(invalid(await rule(policy, { collection: name, action: 'read' })).slice(-1)).toEqual(['collection']);
      const fields = { collection: 'notes', action: 'read', fields: ['title', name] };
      expect(invalid(await rule(policy, fields)).slice(-2)).toEqual(['fields', '1']);
      const cond = { collection: 'notes', action: 'read', conditions: { [name]: { _eq: 1 } } };
      expect(invalid(await rule(policy, cond))[0]).toBe('conditions');
      const presets = { collection: 'notes', action: 'create', presets: { [name]: 1 } };
      expect(invalid(await rule(policy, presets)).slice(-2)).toEqual(['presets', name]);
    }
    const proto = await t.call({
      method: 'POST',
      url: `/api/v1/policies/${policy}/permissions`,
      as: admin,
      site: 'main',
      headers: { 'content-type': 'application/json' },
      payload: '{"collection":"notes","action":"read","conditions":{"__proto__":{"_eq":1}}}',
    });
    expect(proto.statusCode).toBe(400);
    expect(proto.json().errors[0].code).toBe('VALIDATION_FAILED');
    const rules = (await ok('GET', `/api/v1/policies/${policy}/permissions`)).data;
    expect(rules).toEqual([]);
  });

  it('takes condition values that name prototype members as plain values', async () => {
    const policy = await newPolicy('values');
    const body = { collection: 'notes', action: 'read', conditions: { title: { _in: ['constructor', 'toString'] } } };
    expect((await rule(policy, body)).statusCode).toBe(201);
    await ok('POST', `/api/v1/policies/${policy}/attach`, { role });
    const res = await ok('GET', '/api/v1/items/notes?sort=id', undefined, author);
    expect(res.data.map((n: { id: string }) => n.id)).toEqual(['n1', 'n2']);
    const me = await ok('GET', '/api/v1/permissions/me', undefined, author);
    expect(me.data.collections.notes.read.conditions).toEqual({ title: { _in: ['constructor', 'toString'] } });
    await ok('POST', `/api/v1/policies/${policy}/detach`, { role });
  });
});

describe('POST /api/v1/permissions/check and GET /api/v1/permissions/me', () => {
  it('answer prototype member names in the envelope, never 500', async () => {
    for (const name of ['constructor', '__proto__', 'toString']) {
      invalid(await call('POST', '/api/v1/permissions/check', { collection: name, action: 'read' }));
      const user = await call('POST', '/api/v1/permissions/check', {
        collection: 'notes',
        action: 'read',
        userId: name,
      });
      expect(user.statusCode, name).toBe(400);
      const item = await call('POST', '/api/v1/permissions/check', {
        collection: 'notes',
        action: 'read',
        itemId: name,
      });
      expect(item.statusCode, name).toBe(404);
      expect(item.json().errors[0].code).toBe('RECORD_NOT_FOUND');
    }
    const me = await ok('GET', '/api/v1/permissions/me');
    expect(Object.keys(me.data.collections)).toEqual(expect.arrayContaining(['notes', 'media']));
  });
});

describe('ids of users and users role references', () => {
  it('refuse prototype member names with 400 and leave well-formed unknown ids 404', async () => {
    for (const name of ['constructor', '__proto__', 'prototype', 'hasOwnProperty']) {
      expect(invalid(await call('GET', `/api/v1/users/${name}`))).toEqual(['params', 'id']);
      expect(invalid(await call('PATCH', `/api/v1/users/${name}`, { roleKey: 'editor' }))).toEqual(['params', 'id']);
      expect(invalid(await call('DELETE', `/api/v1/users/${name}`))).toEqual(['params', 'id']);
      const authorId = (await ok('GET', '/api/v1/auth/me', undefined, author)).data.id;
      expect(invalid(await call('PATCH', `/api/v1/users/${authorId}`, { roleId: name }))).toEqual(['roleId']);
      expect(invalid(await call('PATCH', `/api/v1/users/${authorId}`, { roleKey: name }))).toEqual(['roleKey']);
    }
    expect((await call('GET', '/api/v1/users/no-such-user')).statusCode).toBe(404);
    expect((await call('GET', '/api/v1/teams/no-such-team')).statusCode).toBe(404);
    expect((await call('GET', '/api/v1/policies/no-such-policy/permissions')).statusCode).toBe(404);
  });
});
