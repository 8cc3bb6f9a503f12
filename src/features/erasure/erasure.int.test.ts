import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';
import { createUser } from '../../../test/setup/users.ts';

let t: TestApp;
let admin: string;
const PASSWORD = 'Erasure-pass-1618!x';
type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

beforeAll(async () => {
  t = await createTestApp();
  admin = await t.setup();
  for (const id of ['second', 'third'])
    await t.call({ method: 'POST', url: '/api/v1/sites', as: admin, payload: { id, name: id } });
  await t.call({ method: 'POST', url: '/api/v1/collections', as: admin, site: 'main', payload: { name: 'notes' } });
  await t.call({
    method: 'POST',
    url: '/api/v1/fields/notes',
    as: admin,
    site: 'main',
    payload: { field: 'title', type: 'string' },
  });
});
afterAll(() => t.close());

const call = (method: Method, url: string, as: string, payload?: unknown, site = 'main') =>
  t.call({ method, url, as, site, ...(payload === undefined ? {} : { payload: payload as object }) });
const ok = async (method: Method, url: string, as: string, payload?: unknown, site = 'main') => {
  const res = await call(method, url, as, payload, site);
  expect(res.statusCode, res.body).toBeLessThan(300);
  return res.json().data;
};

/** Every text, JSON and byte column of every table, searched for the needles: where a person could still be read. */
async function traces(needles: string[]): Promise<string[]> {
  const db = t.deps.database.owner;
  const cols = await sql<{ table_name: string; column_name: string }>`
    select c.table_name, c.column_name from information_schema.columns c
    join information_schema.tables x on x.table_schema = c.table_schema and x.table_name = c.table_name
    where c.table_schema = current_schema() and x.table_type = 'BASE TABLE'
      and c.data_type in ('text', 'character varying', 'jsonb', 'json', 'bytea')`.execute(db);
  const found: string[] = [];
  for (const { table_name, column_name } of cols.rows)
    for (const needle of needles) {
      const r = await sql<{ n: number }>`select count(*)::int as n from ${sql.table(table_name)}
        where position(lower(${needle}) in lower(convert_from(convert_to(${sql.ref(column_name)}::text, 'UTF8'), 'UTF8'))) > 0`.execute(
        db,
      );
      if (r.rows[0]!.n > 0) found.push(`${table_name}.${column_name}: ${needle}`);
    }
  return found;
}

describe('erasure by crypto-shredding', () => {
  it('leaves no readable trace of the person in any table, keeps what they wrote, and proves it', async () => {
    const email = 'grace.hopper@erasure.test';
    const person = await createUser(t, email, PASSWORD, { main: 'editor' });
    const me = await ok('GET', '/api/v1/auth/me', person);
    await ok('PATCH', '/api/v1/auth/me', person, { firstName: 'Gracewilhelmina', lastName: 'Hopperstein' }).catch(
      () => null,
    );
    const login = await t.call({ method: 'POST', url: '/api/v1/auth/login', payload: { email, password: PASSWORD } });
    expect(login.statusCode).toBe(200);
    const note = await ok('POST', '/api/v1/items/notes', person, { title: 'written before the erasure' });
    await ok('PUT', '/api/v1/me/consents/marketing', person, { granted: true, source: 'form', version: 'v1' });
    expect((await traces([email])).length).toBeGreaterThan(0); // the scan sees the rows it searches

    const res = await call('POST', '/api/v1/admin/erasure', admin, { userId: me.id, reason: 'GDPR Art. 17 request' });
    expect(res.statusCode, res.body).toBe(201);
    const proof = res.json().data;
    expect(proof).toMatchObject({
      subjectId: me.id,
      reason: 'GDPR Art. 17 request',
      completed: true,
      shredded: [`subject:${me.id}`, 'suppression:main'],
      scrubbed: { readModels: ['users', 'user_sites', 'sessions'] },
    });
    expect(proof.keyFingerprint).toMatch(/^[0-9a-f]{32}$/);
    expect(proof.revoked.sessions).toBeGreaterThan(0);
    expect(await ok('GET', `/api/v1/admin/erasure/${proof.erasureId}`, admin)).toEqual(proof);

    expect(await traces([email, 'grace.hopper'])).toEqual([]);
    // A rebuild of the read models from the log brings nothing back: the key that opened it is gone.
    for (const name of ['users', 'sessions']) await t.deps.engine.rebuild(name);
    expect(await traces([email, 'grace.hopper'])).toEqual([]);

    // No way in any more, and what they wrote stays, attributed to their (now anonymous) id.
    expect((await call('GET', '/api/v1/auth/me', person)).statusCode).toBe(401);
    const again = await t.call({ method: 'POST', url: '/api/v1/auth/login', payload: { email, password: PASSWORD } });
    expect(again.statusCode).toBe(401);
    const kept = await ok('GET', `/api/v1/items/notes/${note.id}?fields=title,created_by`, admin);
    expect(kept).toMatchObject({ title: 'written before the erasure', created_by: me.id });
    const audit = await ok('GET', '/api/v1/audit?type=ErasureCompleted', admin);
    expect(audit).toHaveLength(1);
    expect(JSON.stringify(audit)).not.toContain('grace');

    // Once is enough: a second erasure answers 409; an unknown person 404.
    const twice = await call('POST', '/api/v1/admin/erasure', admin, { userId: me.id, reason: 'again' });
    expect(twice.statusCode).toBe(409);
    expect((await call('POST', '/api/v1/admin/erasure', admin, { userId: 'nobody', reason: 'x' })).statusCode).toBe(
      404,
    );
  });

  it('is for the admins of every site the person belongs to', async () => {
    const both = await createUser(t, 'both@erasure.test', PASSWORD, { main: 'viewer', second: 'viewer' });
    const bothId = (await ok('GET', '/api/v1/auth/me', both)).id;
    const secondAdmin = await createUser(t, 'admin2@erasure.test', PASSWORD, { second: 'admin' });
    const siteAdmin = await createUser(t, 'sa@erasure.test', PASSWORD, { main: 'site_admin' });
    expect((await call('POST', '/api/v1/admin/erasure', siteAdmin, { userId: bothId, reason: 'x' })).statusCode).toBe(
      403,
    );
    // The second site's admin does not administer the first: the person's erasure is not theirs alone.
    const elsewhere = await call(
      'POST',
      '/api/v1/admin/erasure',
      secondAdmin,
      { userId: bothId, reason: 'x' },
      'second',
    );
    expect(elsewhere.statusCode).toBe(403);
    // Nor may they erase someone of another site only.
    const only = await createUser(t, 'only@erasure.test', PASSWORD, { third: 'viewer' });
    const onlyId = (await ok('GET', '/api/v1/auth/me', only)).id;
    expect(
      (await call('POST', '/api/v1/admin/erasure', secondAdmin, { userId: onlyId, reason: 'x' }, 'second')).statusCode,
    ).toBe(404);
    expect(
      (
        await t.call({
          method: 'POST',
          url: '/api/v1/admin/erasure',
          site: 'main',
          payload: { userId: bothId, reason: 'x' },
        })
      ).statusCode,
    ).toBe(401);
    for (const body of [
      { userId: bothId },
      { userId: bothId, reason: '' },
      { userId: bothId, email: 'x@y.z', reason: 'r' },
      {},
    ])
      expect((await call('POST', '/api/v1/admin/erasure', admin, body)).statusCode, JSON.stringify(body)).toBe(400);
    // The instance admin erases by address; another site's proof is not found from here.
    const byEmail = await ok('POST', '/api/v1/admin/erasure', admin, { email: 'both@erasure.test', reason: 'request' });
    expect(byEmail.subjectId).toBe(bothId);
    expect(
      (await call('GET', `/api/v1/admin/erasure/${byEmail.erasureId}`, secondAdmin, undefined, 'second')).statusCode,
    ).toBe(404);
  });
  it('rebuilds to what it was live: read models after an erasure equal their rebuild from the log', async () => {
    const snapshot = async () => {
      const db = t.deps.database.owner;
      const users = await sql`select user_id, email, first_name, last_name, password_hash, token_version, preferences
        from users order by user_id`.execute(db);
      const sites = await sql`select site_id, user_id, role from user_sites order by site_id, user_id`.execute(db);
      const sessions = await sql`select session_id, user_id, ip, user_agent, revoked_at is not null as revoked
        from sessions order by session_id`.execute(db);
      return JSON.stringify([users.rows, sites.rows, sessions.rows]);
    };
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ logins: fc.nat(2), erase: fc.boolean(), byEmail: fc.boolean() }), {
          minLength: 1,
          maxLength: 3,
        }),
        async (people) => {
          run++;
          for (const [i, p] of people.entries()) {
            const email = `p${run}-${i}@rebuild.test`;
            const token = await createUser(t, email, PASSWORD, { main: 'viewer' });
            const id = (await ok('GET', '/api/v1/auth/me', token)).id;
            for (let n = 0; n < p.logins; n++)
              await t.call({ method: 'POST', url: '/api/v1/auth/login', payload: { email, password: PASSWORD } });
            if (p.erase)
              await ok(
                'POST',
                '/api/v1/admin/erasure',
                admin,
                p.byEmail ? { email, reason: 'r' } : { userId: id, reason: 'r' },
              );
          }
          const live = await snapshot();
          for (const name of ['users', 'sessions']) await t.deps.engine.rebuild(name);
          expect(await snapshot()).toBe(live);
        },
      ),
      { numRuns: 6 },
    );
  });

  it('finishes an erasure cut short after the key was destroyed, when asked again', async () => {
    const email = 'cut.short@erasure.test';
    const token = await createUser(t, email, PASSWORD, { main: 'viewer' });
    const id = (await ok('GET', '/api/v1/auth/me', token)).id;
    // As if the process died right after destroying the key: nothing else happened.
    const { shred } = await import('../../kernel/privacy/pii.ts');
    await shred(t.deps.db, id);
    const done = await ok('POST', '/api/v1/admin/erasure', admin, { userId: id, reason: 'again' });
    expect(done).toMatchObject({ completed: true, keyFingerprint: null });
    expect(await traces([email, 'cut.short'])).toEqual([]);
    expect((await call('GET', '/api/v1/auth/me', token)).statusCode).toBe(401);
  });
});
