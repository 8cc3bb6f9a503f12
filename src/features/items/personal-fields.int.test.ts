import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';
import { createUser } from '../../../test/setup/users.ts';
import { tablesHolding } from '../../../test/support/table-scan.ts';

let t: TestApp;
let admin: string;
const PASSWORD = 'Personal-pass-2718!x';
type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

const call = (method: Method, url: string, as: string, payload?: unknown, site = 'main') =>
  t.call({ method, url, as, site, ...(payload === undefined ? {} : { payload: payload as object }) });
const ok = async (method: Method, url: string, as: string, payload?: unknown, site = 'main') => {
  const res = await call(method, url, as, payload, site);
  expect(res.statusCode, res.body).toBeLessThan(300);
  return res.json().data;
};
const refused = async (method: Method, url: string, payload: unknown, status: number, path?: unknown[]) => {
  const res = await call(method, url, admin, payload);
  expect(res.statusCode, res.body).toBe(status);
  if (path) expect(res.json().errors[0].path).toEqual(path);
  return res.json().errors[0];
};

const traces = (needle: string) => tablesHolding(t.deps.database.owner, [needle]);

beforeAll(async () => {
  t = await createTestApp();
  admin = await t.setup();
  await ok('POST', '/api/v1/sites', admin, { id: 'other', name: 'other' });
  await ok('POST', '/api/v1/collections', admin, { name: 'customers', subject: { from: 'item' } });
  await ok('POST', '/api/v1/fields/customers', admin, { field: 'name', type: 'string', personal: true });
  await ok('POST', '/api/v1/fields/customers', admin, {
    field: 'email',
    type: 'string',
    personal: true,
    erasedValue: '[erased]',
  });
  await ok('POST', '/api/v1/fields/customers', admin, { field: 'visits', type: 'integer', personal: true });
  await ok('POST', '/api/v1/fields/customers', admin, { field: 'tier', type: 'string' });
  await ok('POST', '/api/v1/collections', admin, {
    name: 'submissions',
    subject: { from: 'field', field: 'user_created' },
  });
  await ok('POST', '/api/v1/fields/submissions', admin, { field: 'message', type: 'text', personal: true });
  await ok('POST', '/api/v1/fields/submissions', admin, { field: 'topic', type: 'string' });
  await ok('POST', '/api/v1/collections', admin, { name: 'tickets' });
  await ok('POST', '/api/v1/fields/tickets', admin, { field: 'owner', type: 'string' });
  await ok('PATCH', '/api/v1/collections/tickets', admin, { subject: { from: 'field', field: 'owner' } });
  await ok('POST', '/api/v1/fields/tickets', admin, { field: 'phone', type: 'string', personal: true });
});
afterAll(() => t.close());

describe('personal fields: the schema rules', () => {
  it('refuses a personal field without a subject, unique, with a default or a mistyped erased value', async () => {
    await ok('POST', '/api/v1/collections', admin, { name: 'plain' });
    const e = await refused('POST', '/api/v1/fields/plain', { field: 'x', type: 'string', personal: true }, 400, [
      'personal',
    ]);
    expect(e.message).toContain('subject');
    await refused(
      'POST',
      '/api/v1/fields/customers',
      { field: 'u', type: 'string', personal: true, unique: true },
      400,
    );
    await refused(
      'POST',
      '/api/v1/fields/customers',
      { field: 'd', type: 'string', personal: true, default: 'x' },
      400,
    );
    await refused(
      'POST',
      '/api/v1/fields/customers',
      { field: 'n', type: 'integer', personal: true, erasedValue: 'none' },
      400,
    );
    await refused('POST', '/api/v1/fields/customers', { field: 'p', type: 'string', erasedValue: 'x' }, 400);
  });

  it('keeps a field personal for good, and a subject while fields are personal', async () => {
    await refused('PATCH', '/api/v1/fields/customers/name', { personal: false }, 400);
    await refused('PATCH', '/api/v1/collections/customers', { subject: null }, 400, ['subject']);
    await refused('DELETE', '/api/v1/fields/tickets/owner', undefined, 400, ['field']);
    await refused('PATCH', '/api/v1/collections/tickets', { subject: { from: 'field', field: 'phone' } }, 400, [
      'subject',
    ]);
    await refused('PATCH', '/api/v1/collections/tickets', { subject: { from: 'field', field: 'nope' } }, 400, [
      'subject',
    ]);
    const field = await ok('GET', '/api/v1/fields/customers/email', admin);
    expect(field).toMatchObject({ personal: true, erasedValue: '[erased]' });
    expect((await ok('GET', '/api/v1/fields/customers/tier', admin)).personal).toBe(false);
    expect((await ok('GET', '/api/v1/collections/customers', admin)).subject).toEqual({ from: 'item' });
  });
});

describe('personal fields: values sealed for their subject', () => {
  it('answers them in clear everywhere the API shows items, while neither the log nor the read model holds them', async () => {
    const c = await ok('POST', '/api/v1/items/customers', admin, {
      name: 'Ada Lovelace-Personal',
      email: 'ada@personal.test',
      visits: 3,
      tier: 'gold',
    });
    expect(c).toMatchObject({ name: 'Ada Lovelace-Personal', email: 'ada@personal.test', visits: 3, tier: 'gold' });
    const updated = await ok('PATCH', `/api/v1/items/customers/${c.id}`, admin, { visits: 4 });
    expect(updated).toMatchObject({ name: 'Ada Lovelace-Personal', visits: 4 });
    expect(await ok('GET', `/api/v1/items/customers/${c.id}`, admin)).toMatchObject({ email: 'ada@personal.test' });
    const list = await ok('GET', '/api/v1/items/customers?fields=id,name', admin);
    expect(list).toEqual([{ id: c.id, name: 'Ada Lovelace-Personal' }]);
    const revisions = await ok('GET', `/api/v1/items/customers/${c.id}/revisions`, admin);
    expect(revisions.map((r: { data: { visits: number } }) => r.data.visits)).toEqual([4, 3]);
    const asOf = await ok('GET', `/api/v1/items/customers/${c.id}?version=1`, admin);
    expect(asOf).toMatchObject({ name: 'Ada Lovelace-Personal', visits: 3 });
    expect(await traces('Lovelace-Personal')).toEqual([]);
    expect(await traces('ada@personal.test')).toEqual([]);
    expect(await traces('gold')).not.toEqual([]);
  });

  it('cannot be filtered, sorted or searched, and refuses values of the wrong type', async () => {
    const filter = await call('GET', '/api/v1/items/customers?filter[email][_eq]=ada@personal.test', admin);
    expect(filter.statusCode, filter.body).toBe(400);
    expect(filter.json().errors[0].message).toContain('personal');
    expect((await call('GET', '/api/v1/items/customers?sort=name', admin)).statusCode).toBe(400);
    expect(await ok('GET', '/api/v1/items/customers?search=Lovelace', admin)).toEqual([]);
    const bad = await call('POST', '/api/v1/items/customers', admin, { visits: 'many' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0].path).toEqual(['visits']);
    const forged = await call('POST', '/api/v1/items/customers', admin, { name: 'personal:eA:AAAA' });
    expect(forged.statusCode).toBe(400);
  });

  it('is another site’s business nowhere: a foreign admin reads nothing', async () => {
    const c = await ok('POST', '/api/v1/items/customers', admin, { name: 'Site-bound Person' });
    const res = await call('GET', `/api/v1/items/customers/${c.id}`, admin, undefined, 'other');
    expect(res.statusCode).toBe(404);
  });
});

describe('personal fields: an item that is its own subject, erased', () => {
  it('reads as the erased values after POST /admin/erasure { item }, keeps the rest, and proves it', async () => {
    const c = await ok('POST', '/api/v1/items/customers', admin, {
      name: 'Charles Babbage-Erasable',
      email: 'charles@erasable.test',
      visits: 9,
      tier: 'silver',
    });
    const editor = await createUser(t, 'erasure-editor@personal.test', PASSWORD, { main: 'editor' });
    const body = { item: { collection: 'customers', id: c.id }, reason: 'customer asked (art. 17)' };
    expect(
      (await t.call({ method: 'POST', url: '/api/v1/admin/erasure', site: 'main', payload: body })).statusCode,
    ).toBe(401);
    expect((await call('POST', '/api/v1/admin/erasure', editor, body)).statusCode).toBe(403);
    const foreign = await call('POST', '/api/v1/admin/erasure', admin, body, 'other');
    expect(foreign.statusCode).toBe(404);
    const proof = await ok('POST', '/api/v1/admin/erasure', admin, body);
    expect(proof).toMatchObject({
      subjectId: `item:main:customers:${c.id}`,
      completed: true,
      shredded: [`subject:item:main:customers:${c.id}`],
    });
    expect(proof.keyFingerprint).toMatch(/^[0-9a-f]{32}$/);
    expect(await ok('GET', `/api/v1/items/customers/${c.id}`, admin)).toMatchObject({
      name: null,
      email: '[erased]',
      visits: null,
      tier: 'silver',
    });
    const again = await call('POST', '/api/v1/admin/erasure', admin, body);
    expect(again.statusCode).toBe(409);
    // Nothing personal is recorded about an erased subject again; its other values still change.
    const late = await call('PATCH', `/api/v1/items/customers/${c.id}`, admin, { name: 'Charles again' });
    expect(late.statusCode, late.body).toBe(400);
    expect(late.json().errors[0]).toMatchObject({ path: ['name'], extensions: { reason: 'subject_erased' } });
    expect(await ok('PATCH', `/api/v1/items/customers/${c.id}`, admin, { tier: 'bronze' })).toMatchObject({
      tier: 'bronze',
      email: '[erased]',
    });
    const listed = await ok('GET', '/api/v1/admin/erasure', admin);
    expect(listed.find((e: { erasureId: string }) => e.erasureId === proof.erasureId)).toMatchObject({
      status: 'completed',
    });
    const missing = await call('POST', '/api/v1/admin/erasure', admin, {
      ...body,
      item: { collection: 'customers', id: 'nope' },
    });
    expect(missing.statusCode).toBe(404);
    const notSubject = await call('POST', '/api/v1/admin/erasure', admin, {
      ...body,
      item: { collection: 'tickets', id: c.id },
    });
    expect(notSubject.statusCode).toBe(404);
    for (const name of ['item-documents', 'item-revisions']) await t.deps.engine.rebuild(name);
    expect(await ok('GET', `/api/v1/items/customers/${c.id}?version=1`, admin)).toMatchObject({ email: '[erased]' });
    expect(await traces('Babbage-Erasable')).toEqual([]);
  });
});

describe('personal fields: a user subject', () => {
  it('seals a submission for its author; erasing the author leaves the erased value, also after a rebuild', async () => {
    const person = await createUser(t, 'submitter@personal.test', PASSWORD, { main: 'admin' });
    const me = await ok('GET', '/api/v1/auth/me', person);
    const s = await ok('POST', '/api/v1/items/submissions', person, {
      message: 'My secret complaint-PERSONAL',
      topic: 'billing',
    });
    expect(s.message).toBe('My secret complaint-PERSONAL');
    expect(await ok('GET', `/api/v1/items/submissions/${s.id}`, admin)).toMatchObject({
      message: 'My secret complaint-PERSONAL',
    });
    // Their own export opens what was sealed for them; an admin's shows another subject's values masked.
    const own = (await call('GET', '/api/v1/me/data-export', person)).json();
    const mine = own.parts.items.find((i: { record: { id: string } }) => i.record.id === s.id);
    expect(mine.record.message).toBe('My secret complaint-PERSONAL');
    const adminExport = (await call('GET', '/api/v1/me/data-export', admin)).json();
    const customers = adminExport.parts.items.filter((i: { collection: string }) => i.collection === 'customers');
    expect(customers.length).toBeGreaterThan(0);
    for (const c of customers) expect([null, '***']).toContain(c.record.name ?? null);
    await ok('POST', '/api/v1/admin/erasure', admin, { userId: me.id, reason: 'GDPR art. 17 request' });
    const after = await ok('GET', `/api/v1/items/submissions/${s.id}`, admin);
    expect(after).toMatchObject({ message: null, topic: 'billing', created_by: me.id });
    for (const name of ['item-documents', 'item-revisions']) await t.deps.engine.rebuild(name);
    expect(await ok('GET', `/api/v1/items/submissions/${s.id}`, admin)).toMatchObject({ message: null });
    const revisions = await ok('GET', `/api/v1/items/submissions/${s.id}/revisions`, admin);
    expect(revisions[0].data.message).toBeNull();
    expect(await traces('complaint-PERSONAL')).toEqual([]);
  });

  it('needs a subject that is a member of the site, and keeps it once personal values are held', async () => {
    const member = await createUser(t, 'ticket-owner@personal.test', PASSWORD, { main: 'editor' });
    const memberId = (await ok('GET', '/api/v1/auth/me', member)).id;
    const stranger = await createUser(t, 'stranger@personal.test', PASSWORD, { other: 'editor' });
    const strangerId = (await ok('GET', '/api/v1/auth/me', stranger, undefined, 'other')).id;
    const none = await call('POST', '/api/v1/items/tickets', admin, { phone: '+44 1' });
    expect(none.statusCode).toBe(400);
    expect(none.json().errors[0]).toMatchObject({ path: ['owner'], extensions: { reason: 'subject' } });
    const foreign = await call('POST', '/api/v1/items/tickets', admin, { owner: strangerId, phone: '+44 2' });
    expect(foreign.statusCode).toBe(400);
    const ticket = await ok('POST', '/api/v1/items/tickets', admin, { owner: memberId, phone: '+44 3' });
    expect(ticket.phone).toBe('+44 3');
    const moved = await call('PATCH', `/api/v1/items/tickets/${ticket.id}`, admin, { owner: 'someone-else' });
    expect(moved.statusCode).toBe(400);
    expect(moved.json().errors[0].path).toEqual(['owner']);
    const empty = await ok('POST', '/api/v1/items/tickets', admin, { owner: 'anyone' });
    expect(await ok('PATCH', `/api/v1/items/tickets/${empty.id}`, admin, { owner: memberId })).toMatchObject({
      owner: memberId,
    });
    // A bulk write: each row's subject checked (one lookup per person), the refusal names the row that failed.
    const rows = [0, 1, 2].map((i) => ({ owner: memberId, phone: `+44 4${i}` }));
    const bulk = await call('POST', '/api/v1/items/tickets', admin, [...rows, { owner: strangerId, phone: '+44 5' }]);
    expect(bulk.statusCode).toBe(400);
    expect(bulk.json().errors.map((e: { path: unknown[] }) => e.path)).toEqual([['3', 'owner']]);
    const made = await call('POST', '/api/v1/items/tickets', admin, rows);
    expect(made.statusCode, made.body).toBe(201);
    expect(made.json().data.map((r: { phone: string }) => r.phone)).toEqual(['+44 40', '+44 41', '+44 42']);
  });
});
