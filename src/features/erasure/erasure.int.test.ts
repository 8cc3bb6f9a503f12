import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';
import { createUser } from '../../../test/setup/users.ts';
import { tablesHolding } from '../../../test/support/table-scan.ts';

/** Where the person could still be read: every text, JSON and byte column of every table. */
const traces = (needles: string[]) => tablesHolding(t.deps.database.owner, needles);
import { newId } from '../../kernel/ids.ts';
import { shredForGood } from '../../platform/privacy/pii.ts';
import { erasureStream } from '../../contracts/erasure/erasure.events.ts';
import { resumeErasures } from './erasure.commands.ts';

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
    const sarExport = await ok('POST', '/api/v1/admin/sar', admin, { userId: me.id });

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
    // Their subject-access export held their data in clear: its file is gone too.
    expect(proof.scrubbed.sarExports).toBe(1);
    const sarGone = await call('GET', `/api/v1/admin/sar/${sarExport.id}`, admin);
    expect(sarGone.statusCode).toBe(404);
    expect(sarGone.json().errors[0].extensions).toMatchObject({ reason: 'erased' });

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
    const { shred } = await import('../../platform/privacy/pii.ts');
    await shred(t.deps.db, id);
    const done = await ok('POST', '/api/v1/admin/erasure', admin, { userId: id, reason: 'again' });
    expect(done).toMatchObject({ completed: true, keyFingerprint: null });
    expect(await traces([email, 'cut.short'])).toEqual([]);
    expect((await call('GET', '/api/v1/auth/me', token)).statusCode).toBe(401);
  });
});

describe('erasure racing the person’s own writes', () => {
  it('answers each write precisely, leaves nothing readable and no new key, and completes its proof', async () => {
    const needles: string[] = [];
    const outcomes = new Map<string, number[]>();
    const seen = (what: string, status: number) => outcomes.set(what, [...(outcomes.get(what) ?? []), status]);
    const ROUNDS = 10;
    for (let i = 0; i < ROUNDS; i++) {
      const email = `racer${i}@race.test`;
      const names = { firstName: `Zephyrinus${i}x`, lastName: `Quackenbushy${i}x` };
      const ips = [`10.77.${i}.11`, `10.77.${i}.12`];
      needles.push(email, names.firstName, names.lastName, `Renamed${i}x`, ...ips);
      const made = await call('POST', '/api/v1/users', admin, {
        email,
        password: PASSWORD,
        roleKey: 'editor',
        ...names,
      });
      expect(made.statusCode, made.body).toBe(201);
      const userId = made.json().data.id as string;
      const login = (remoteAddress: string) =>
        t.call({ method: 'POST', url: '/api/v1/auth/login', remoteAddress, payload: { email, password: PASSWORD } });
      const first = await login(ips[0]!);
      expect(first.statusCode).toBe(200);
      const token = first.json().data.token as string;

      // The erasure goes first; each write joins it after a number of event-loop turns that grows with the round, so
      // that the rounds cover writes landing before, among and after the erasure's steps (no clock involved).
      const after = async <T>(turns: number, send: () => Promise<T>) => {
        for (let k = 0; k < turns; k++) await new Promise<void>((r) => setImmediate(r));
        return send();
      };
      const d = i % 3;
      const [erased, ...writes] = await Promise.all([
        after(i % 2, () => call('POST', '/api/v1/admin/erasure', admin, { userId, reason: `race ${i}` })),
        after(d, () => call('PATCH', '/api/v1/me/preferences', token, { saveAction: 'stay' })),
        after(d, () =>
          call('PUT', '/api/v1/me/consents/marketing', token, { granted: true, source: 'banner', version: 'v1' }),
        ),
        after(d, () => call('POST', '/api/v1/items/notes', token, { title: `raced ${i}` })),
        after(i * 4, () => login(ips[1]!)),
        after(i, () => call('PATCH', `/api/v1/users/${userId}`, admin, { firstName: `Renamed${i}x` })),
      ]);
      expect(erased!.statusCode, erased!.body).toBe(201);
      const what = ['preferences', 'consent', 'item', 'login', 'rename'];
      for (const [n, res] of writes.entries()) {
        seen(what[n]!, res.statusCode);
        expect(res.statusCode, `${what[n]}: ${res.body}`).toBeLessThan(500);
        if (res.statusCode >= 400)
          expect(['UNAUTHENTICATED', 'NOT_FOUND', 'RECORD_NOT_FOUND'], `${what[n]}: ${res.body}`).toContain(
            res.json().errors[0].code,
          );
      }
      // A login that got in before the key went ended with the erasure; the first token too.
      const late = writes[3]!;
      if (late.statusCode === 200)
        expect((await call('GET', '/api/v1/auth/me', late.json().data.token)).statusCode).toBe(401);
      expect((await call('GET', '/api/v1/auth/me', token)).statusCode).toBe(401);
      // The proof is complete, and no key was made for the person after theirs was destroyed.
      const proof = await ok('GET', `/api/v1/admin/erasure/${erased!.json().data.erasureId}`, admin);
      expect(proof).toMatchObject({ completed: true, status: 'completed', subjectId: userId });
      const keys = await sql<{ n: number }>`select length(key)::int as n from subject_keys
        where subject_id = ${userId}`.execute(t.deps.database.owner);
      expect(keys.rows).toEqual([{ n: 0 }]);
    }
    expect(await traces(needles)).toEqual([]);
    for (const name of ['users', 'sessions']) await t.deps.engine.rebuild(name);
    expect(await traces(needles)).toEqual([]);
    // Every kind of write was tried in each round (the answers vary with the interleaving).
    expect([...outcomes.values()].every((s) => s.length === ROUNDS)).toBe(true);
  });
});

describe('an erasure cut short', () => {
  /** As if the process died right after `ErasureStarted` (and, with `shred`, after destroying the key). */
  async function orphan(email: string, shred: boolean, by = 'admin') {
    const token = await createUser(t, email, PASSWORD, { main: 'viewer' });
    const userId = (await ok('GET', '/api/v1/auth/me', token)).id as string;
    const adminId = (await ok('GET', '/api/v1/auth/me', admin)).id as string;
    const erasureId = newId();
    const at = new Date().toISOString();
    const data = { erasureId, subjectId: userId, reason: 'cut short', by: by === 'admin' ? adminId : by, at };
    const metadata = {
      siteId: 'main',
      actor: { type: 'user' as const, id: data.by },
      correlationId: 'test',
      causationId: null,
      requestId: null,
      occurredAt: at,
    };
    await t.deps.store.append(erasureStream('main', erasureId), [{ type: 'ErasureStarted', data, metadata }], {
      expectedVersion: 'no_stream',
    });
    if (shred) await shredForGood(t.deps.db, userId);
    return { token, userId, erasureId };
  }

  it('is listed and read as incomplete; asking again completes the same erasure', async () => {
    const o = await orphan('orphan.one@erasure.test', true);
    const read = await ok('GET', `/api/v1/admin/erasure/${o.erasureId}`, admin);
    expect(read).toMatchObject({ status: 'incomplete', completed: false, completedAt: null, revoked: null });
    const list = await call('GET', '/api/v1/admin/erasure?limit=200', admin);
    expect(list.statusCode).toBe(200);
    expect(list.json().meta).toMatchObject({ page: 1, pageSize: 200 });
    expect(list.json().data).toContainEqual(expect.objectContaining({ erasureId: o.erasureId, status: 'incomplete' }));
    // The person can no longer be written about (their key is gone for good): a precise 401.
    const late = await call('PATCH', `/api/v1/users/${o.userId}`, admin, { firstName: 'Afterwards' });
    expect(late.statusCode, late.body).toBe(401);
    expect(late.json().errors[0]).toMatchObject({ code: 'UNAUTHENTICATED', extensions: { reason: 'erased' } });

    const again = await call('POST', '/api/v1/admin/erasure', admin, { userId: o.userId, reason: 'asked again' });
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json().data).toMatchObject({
      erasureId: o.erasureId,
      reason: 'cut short',
      status: 'completed',
      keyFingerprint: null,
    });
    expect(await traces(['orphan.one@erasure.test', 'Afterwards'])).toEqual([]);
    expect((await call('POST', '/api/v1/admin/erasure', admin, { userId: o.userId, reason: 'x' })).statusCode).toBe(
      409,
    );
    const audit = await ok('GET', '/api/v1/audit?type=ErasureStarted&limit=200', admin);
    expect(audit.filter((e: { data: { subjectId: string } }) => e.data.subjectId === o.userId)).toHaveLength(1);
  });

  it('is completed by the resuming loop for an asker who may still erase, and left listed otherwise', async () => {
    const kept = await orphan('orphan.two@erasure.test', false);
    const demoted = await createUser(t, 'former.admin@erasure.test', PASSWORD, { main: 'viewer' });
    const demotedId = (await ok('GET', '/api/v1/auth/me', demoted)).id as string;
    const stuck = await orphan('orphan.three@erasure.test', false, demotedId);
    await resumeErasures(t.deps, 0);
    expect(await ok('GET', `/api/v1/admin/erasure/${kept.erasureId}`, admin)).toMatchObject({
      status: 'completed',
      revoked: { sessions: 1, apiKeys: 0 },
    });
    expect(await traces(['orphan.two@erasure.test'])).toEqual([]);
    expect((await call('GET', '/api/v1/auth/me', kept.token)).statusCode).toBe(401);
    // Asked by someone who is not (or no longer) an admin of the person's sites: the loop does not act for them.
    expect(await ok('GET', `/api/v1/admin/erasure/${stuck.erasureId}`, admin)).toMatchObject({ status: 'incomplete' });
    expect((await call('GET', '/api/v1/auth/me', stuck.token)).statusCode).toBe(200);
    // Another site lists none of these.
    const other = await call('GET', '/api/v1/admin/erasure', admin, undefined, 'second');
    expect(other.json().data.map((e: { erasureId: string }) => e.erasureId)).not.toContain(stuck.erasureId);
    expect((await call('GET', `/api/v1/admin/erasure/${stuck.erasureId}`, admin, undefined, 'second')).statusCode).toBe(
      404,
    );
    for (const q of ['limit=0', 'limit=201', 'page=0', 'sort=x'])
      expect((await call('GET', `/api/v1/admin/erasure?${q}`, admin)).statusCode, q).toBe(400);
  });
});

describe('who may erase whom (POST /api/v1/admin/erasure)', () => {
  const idOf = async (token: string) => (await ok('GET', '/api/v1/auth/me', token)).id as string;
  const erase = (as: string, userId: string, site = 'main') =>
    call('POST', '/api/v1/admin/erasure', as, { userId, reason: 'who may' }, site);

  it("refuses a site's admin the erasure of an instance administrator, a member of their site or not", async () => {
    const mainAdmin = await createUser(t, 'main.admin@who.test', PASSWORD, { main: 'admin' });
    const member = await idOf(
      await createUser(t, 'ia.member@who.test', PASSWORD, { main: 'viewer' }, { instanceAdmin: true }),
    );
    const outside = await idOf(await createUser(t, 'ia.outside@who.test', PASSWORD, {}, { instanceAdmin: true }));
    for (const target of [member, outside]) {
      const res = await erase(mainAdmin, target);
      expect(res.statusCode, res.body).toBe(403);
      expect(res.json().errors[0]).toMatchObject({
        code: 'PERMISSION_DENIED',
        extensions: { reason: 'instance_admin' },
      });
    }
    // Nothing was started for them: no erasure is listed and they still sign in.
    const listed = await ok('GET', '/api/v1/admin/erasure?limit=200', admin);
    expect(listed.map((e: { subjectId: string }) => e.subjectId)).not.toContain(member);
    const login = await t.call({
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { email: 'ia.member@who.test', password: PASSWORD },
    });
    expect(login.statusCode).toBe(200);
  });

  it('lets an instance administrator erase another, never the last one', async () => {
    const adminId = await idOf(admin);
    const other = await idOf(await createUser(t, 'ia.other@who.test', PASSWORD, {}, { instanceAdmin: true }));
    const done = await erase(admin, other);
    expect(done.statusCode, done.body).toBe(201);
    // Every other instance administrator of this file's instance goes too, so that the setup's is the last.
    const left = await sql<{ user_id: string }>`select user_id from users
      where instance_admin and email is not null and user_id <> ${adminId}`.execute(t.deps.database.owner);
    for (const r of left.rows) expect((await erase(admin, r.user_id)).statusCode).toBe(201);
    const last = await erase(admin, adminId);
    expect(last.statusCode, last.body).toBe(409);
    expect(last.json().errors[0]).toMatchObject({ code: 'CONFLICT', extensions: { reason: 'last_instance_admin' } });
    expect((await call('GET', '/api/v1/auth/me', admin)).statusCode).toBe(200);
  });

  it("lets a site's admin erase only a person all of whose memberships they administer", async () => {
    const mainAdmin = await createUser(t, 'only.main.admin@who.test', PASSWORD, { main: 'admin' });
    const twoSites = await idOf(
      await createUser(t, 'two.sites@who.test', PASSWORD, { main: 'viewer', second: 'viewer' }),
    );
    const nowhere = await idOf(await createUser(t, 'nowhere@who.test', PASSWORD, {}));
    const mainOnly = await idOf(await createUser(t, 'main.only@who.test', PASSWORD, { main: 'editor' }));
    const elsewhere = await erase(mainAdmin, twoSites);
    expect(elsewhere.statusCode, elsewhere.body).toBe(403);
    expect(elsewhere.json().errors[0].code).toBe('PERMISSION_DENIED');
    // A person of no site is no one's to erase but an instance administrator's.
    expect((await erase(mainAdmin, nowhere)).statusCode).toBe(404);
    expect((await erase(mainAdmin, mainOnly)).statusCode).toBe(201);
    // An admin of both sites may erase the person of both; the instance administrator the person of none.
    const bothAdmin = await createUser(t, 'both.admin@who.test', PASSWORD, { main: 'admin', second: 'admin' });
    expect((await erase(bothAdmin, twoSites)).statusCode).toBe(201);
    expect((await erase(admin, nowhere)).statusCode).toBe(201);
  });

  // Last: it erases every other instance administrator, the file's own too.
  it('leaves one of two instance administrators who erase each other at once', async () => {
    const b = await createUser(t, 'ia.b@race.test', PASSWORD, {}, { instanceAdmin: true });
    const c = await createUser(t, 'ia.c@race.test', PASSWORD, {}, { instanceAdmin: true });
    const [bId, cId] = [await idOf(b), await idOf(c)];
    const left = await sql<{ user_id: string }>`select user_id from users
      where instance_admin and email is not null and user_id not in (${bId}, ${cId})`.execute(t.deps.database.owner);
    for (const r of left.rows) expect((await erase(b, r.user_id)).statusCode).toBe(201);
    const answers = await Promise.all([erase(b, cId), erase(c, bId)]);
    // The one erased first may lose its session before its own request is heard (401); never may both pass.
    expect(answers.filter((r) => r.statusCode === 201)).toHaveLength(1);
    expect(answers.map((r) => r.statusCode)).toEqual(expect.arrayContaining([expect.toBeOneOf([401, 409])]));
    const still = await sql<{ n: number }>`select count(*)::int as n from users
      where instance_admin and email is not null`.execute(t.deps.database.owner);
    expect(still.rows[0]!.n).toBe(1);
  });
});
