import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';
import { createUser } from '../../../test/setup/users.ts';
import { accessStream } from './access.events.ts';

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
