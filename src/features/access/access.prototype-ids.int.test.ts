import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';
import { createUser } from '../../../test/setup/users.ts';
import { accessStream } from '../../contracts/access/access.events.ts';

let t: TestApp;
let admin: string;
let editor: string;
beforeAll(async () => {
  t = await createTestApp();
  admin = await t.setup();
  editor = await createUser(t, 'editor@example.com', 'Editor-pass-4242!', { main: 'editor' });
  await t.call({ method: 'POST', url: '/api/v1/collections', as: admin, site: 'main', payload: { name: 'articles' } });
});
afterAll(() => t.close());

const call = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object, as = admin) =>
  t.call({ method, url, as, site: 'main', ...(payload ? { payload } : {}) });

describe('access ids that name object prototype members', () => {
  const names = ['constructor', '__proto__', 'prototype', 'hasOwnProperty', 'valueOf', 'toString'];

  it.each(names)('%s as a role, policy or team id is refused with 400 and appends nothing', async (id) => {
    const before = await t.deps.store.readStream(accessStream('main'), {});
    let count = 0;
    for await (const _ of before) count++;
    const requests: [Parameters<typeof call>[0], string, object?][] = [
      ['GET', `/api/v1/roles/${id}`],
      ['PATCH', `/api/v1/roles/${id}`, { name: 'x' }],
      ['DELETE', `/api/v1/roles/${id}`],
      ['GET', `/api/v1/policies/${id}`],
      ['PATCH', `/api/v1/policies/${id}`, { name: 'x' }],
      ['DELETE', `/api/v1/policies/${id}`],
      ['GET', `/api/v1/policies/${id}/permissions`],
      ['POST', `/api/v1/policies/${id}/permissions`, { collection: 'articles', action: 'read' }],
      ['DELETE', `/api/v1/policies/${id}/permissions/none`],
      ['GET', `/api/v1/teams/${id}`],
      ['PATCH', `/api/v1/teams/${id}`, { name: 'x' }],
      ['DELETE', `/api/v1/teams/${id}`],
    ];
    for (const [method, url, body] of requests) {
      const res = await call(method, url, body);
      expect(res.statusCode, `${method} ${url}`).toBe(400);
      expect(res.json().errors[0].code).toBe('VALIDATION_FAILED');
    }
    let after = 0;
    for await (const _ of await t.deps.store.readStream(accessStream('main'), {})) after++;
    expect(after).toBe(count);
    expect((await call('GET', '/api/v1/permissions/me')).statusCode).toBe(200);
  });

  it('refuses such names as rule collections, parents and attachment targets', async () => {
    const policy = (await call('POST', '/api/v1/policies', { name: 'p1' })).json().data.id as string;
    expect(
      (await call('POST', `/api/v1/policies/${policy}/permissions`, { collection: 'toString', action: 'read' }))
        .statusCode,
    ).toBe(400);
    expect((await call('POST', '/api/v1/roles', { name: 'r1', parentId: 'valueOf' })).statusCode).toBe(400);
    expect((await call('POST', `/api/v1/policies/${policy}/attach`, { team: 'hasOwnProperty' })).statusCode).toBe(400);
  });
});

describe('a log that already holds events naming prototype members', () => {
  it('still folds: the admin and members get normal answers, after a restart too', async () => {
    const metadata = {
      siteId: 'main',
      actor: { type: 'system' as const, id: 'test' },
      correlationId: 'poisoned-log',
      causationId: null,
      requestId: null,
      occurredAt: new Date().toISOString(),
    };
    const at = metadata.occurredAt;
    const permission = {
      id: 'p',
      collection: 'articles',
      action: 'read',
      fields: ['*'],
      conditions: null,
      presets: null,
      validation: null,
    };
    const poison = [
      { type: 'TeamUpdated', data: { id: 'constructor', name: 'x', at } },
      { type: 'PermissionAdded', data: { policyId: '__proto__', permission, at } },
      { type: 'PermissionAdded', data: { policyId: 'hasOwnProperty', permission, at } },
      { type: 'PolicyUpdated', data: { id: 'toString', changes: { name: 'x' }, at } },
      { type: 'RoleUpdated', data: { id: 'valueOf', changes: { name: 'x' }, at } },
      { type: 'TeamMemberAdded', data: { teamId: 'constructor', userId: 'u', at } },
      { type: 'PermissionRemoved', data: { policyId: 'constructor', permissionId: 'p', at } },
      { type: 'PolicyCreated', data: { policy: { id: '__proto__', name: 'odd', description: null }, at } },
      { type: 'PolicyAttached', data: { policyId: '__proto__', target: { kind: 'role', id: 'editor' }, at } },
    ];
    await t.deps.store.append(
      accessStream('main'),
      poison.map((e) => ({ ...e, metadata })),
      { expectedVersion: 'any' },
    );
    for (const round of ['live', 'after restart']) {
      if (round === 'after restart') {
        await t.restart();
        admin = (
          await t.call({
            method: 'POST',
            url: '/api/v1/auth/login',
            payload: { email: 'admin@example.com', password: 'Correct-horse-42!' },
          })
        ).json().data.token;
        editor = (
          await t.call({
            method: 'POST',
            url: '/api/v1/auth/login',
            payload: { email: 'editor@example.com', password: 'Editor-pass-4242!' },
          })
        ).json().data.token;
      }
      expect((await call('GET', '/api/v1/permissions/me')).statusCode, round).toBe(200);
      expect((await call('GET', '/api/v1/permissions/me', undefined, editor)).statusCode, round).toBe(200);
      expect((await call('GET', '/api/v1/policies')).statusCode, round).toBe(200);
      expect((await call('GET', '/api/v1/roles')).statusCode, round).toBe(200);
      expect((await call('GET', '/api/v1/teams')).statusCode, round).toBe(200);
      expect((await call('GET', '/api/v1/items/articles', undefined, editor)).statusCode, round).toBe(200);
      expect((await call('POST', '/api/v1/items/articles', {}, editor)).statusCode, round).toBeLessThan(300);
      expect((await call('POST', '/api/v1/policies', { name: `fresh-${round}` })).statusCode, round).toBe(201);
    }
    expect(Object.prototype).not.toHaveProperty('permissions');
  });
});

describe('a log that already holds records whose ids name prototype members', () => {
  it('folds without them: they grant nothing, are not listed, and the rest of the model still works', async () => {
    const metadata = {
      siteId: 'main',
      actor: { type: 'system' as const, id: 'test' },
      correlationId: 'poisoned-records',
      causationId: null,
      requestId: null,
      occurredAt: new Date().toISOString(),
    };
    const at = metadata.occurredAt;
    const role = (await call('POST', '/api/v1/roles', { name: 'Reader' })).json().data.id as string;
    const policy = (await call('POST', '/api/v1/policies', { name: 'Reader rules' })).json().data.id as string;
    await call('POST', `/api/v1/policies/${policy}/attach`, { role });
    await createUser(t, 'reader@example.com', 'Reader-pass-4242!', { main: role });
    const read = (id: string, conditions: unknown = null) => ({
      id,
      collection: 'articles',
      action: 'read',
      fields: ['*'],
      conditions,
      presets: null,
      validation: null,
    });
    const poison = [
      {
        type: 'RoleCreated',
        data: { role: { id: '__proto__', name: 'odd', description: null, parentId: 'admin' }, at },
      },
      { type: 'PolicyCreated', data: { policy: { id: 'constructor', name: 'odd', description: null }, at } },
      { type: 'PermissionAdded', data: { policyId: 'constructor', permission: read('r1'), at } },
      { type: 'PolicyAttached', data: { policyId: 'constructor', target: { kind: 'role', id: role }, at } },
      { type: 'PolicyCreated', data: { policy: { id: 'hasOwnProperty', name: 'odd', description: null }, at } },
      { type: 'TeamCreated', data: { team: { id: 'prototype', name: 'odd' }, at } },
      { type: 'TeamMemberAdded', data: { teamId: 'prototype', userId: 'u', at } },
      {
        type: 'PermissionAdded',
        data: { policyId: policy, permission: read('r2', JSON.parse('{"__proto__":{}}')), at },
      },
      { type: 'PermissionAdded', data: { policyId: policy, permission: { ...read('r3'), fields: ['toString'] }, at } },
      { type: 'PolicyAttached', data: { policyId: policy, target: { kind: 'team', id: 'constructor' }, at } },
      { type: 'AccessModelReshapedByALaterVersion', data: { at } },
    ];
    await t.deps.store.append(
      accessStream('main'),
      poison.map((e) => ({ ...e, metadata })),
      { expectedVersion: 'any' },
    );
    for (const round of ['live', 'after restart']) {
      if (round === 'after restart') {
        await t.restart();
        admin = await login('admin@example.com', 'Correct-horse-42!');
      }
      const ids = async (url: string) => ((await call('GET', url)).json().data as { id: string }[]).map((r) => r.id);
      for (const odd of ['__proto__', 'constructor', 'hasOwnProperty', 'prototype']) {
        expect(await ids('/api/v1/roles'), round).not.toContain(odd);
        expect(await ids('/api/v1/policies'), round).not.toContain(odd);
        expect(await ids('/api/v1/teams'), round).not.toContain(odd);
      }
      const rules = (await call('GET', `/api/v1/policies/${policy}/permissions`)).json().data;
      expect(rules, round).toEqual([]);
      const readerToken = await login('reader@example.com', 'Reader-pass-4242!');
      const items = await call('GET', '/api/v1/items/articles', undefined, readerToken);
      expect(items.statusCode, round).toBe(403);
      const me = await call('GET', '/api/v1/permissions/me', undefined, readerToken);
      expect(me.statusCode, round).toBe(200);
      expect(me.json().data.policies, round).toEqual([policy]);
      expect((await call('GET', '/api/v1/permissions/me')).statusCode, round).toBe(200);
      const added = await call('POST', `/api/v1/policies/${policy}/permissions`, {
        collection: 'articles',
        action: 'read',
      });
      expect(added.statusCode, round).toBe(201);
      expect((await call('GET', '/api/v1/items/articles', undefined, readerToken)).statusCode, round).toBe(200);
      await call('DELETE', `/api/v1/policies/${policy}/permissions/${added.json().data.id}`);
    }
  });
});

async function login(email: string, password: string): Promise<string> {
  const res = await t.call({ method: 'POST', url: '/api/v1/auth/login', payload: { email, password } });
  return res.json().data.token as string;
}
