import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fold } from '../../kernel/es/decider.ts';
import { isInheritedName } from '../../kernel/safe/keys.ts';
import { accessDecider } from './access.decider.ts';
import type { AccessEvent } from '../../contracts/access/access.events.ts';
import { effectivePermissions, ruleVars } from './effective.ts';

const at = '2026-01-01T00:00:00.000Z';
/** Ids as a log may hold them: ordinary ones and names of prototype members. */
const id = fc.constantFrom('a', 'b', 'editor', '__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty');
const key = fc.constantFrom('title', 'status', '_eq', '__proto__', 'constructor', 'valueOf');
const filter = fc.option(
  fc
    .dictionary(key, fc.constant({ _eq: '$CURRENT_USER' }))
    .map((d) => JSON.parse(JSON.stringify(d)) as Record<string, unknown>),
);
const permission = fc.record({
  id,
  collection: fc.constantFrom('articles', '*', 'constructor'),
  action: fc.constantFrom('read' as const, 'update' as const),
  fields: fc.array(fc.constantFrom('*', 'title', 'toString'), { minLength: 1, maxLength: 2 }),
  conditions: filter,
  presets: filter,
  validation: fc.constant(null),
});
const target = fc.record({ kind: fc.constantFrom('role' as const, 'user' as const, 'team' as const), id });
const event: fc.Arbitrary<AccessEvent> = fc.oneof(
  fc.record({ id, parentId: fc.option(id) }).map(({ id, parentId }): AccessEvent => ({
    type: 'RoleCreated',
    data: { role: { id, name: id, description: null, parentId }, at },
  })),
  fc
    .record({ id, parentId: fc.option(id) })
    .map(({ id, parentId }): AccessEvent => ({ type: 'RoleUpdated', data: { id, changes: { parentId }, at } })),
  id.map((id): AccessEvent => ({ type: 'PolicyCreated', data: { policy: { id, name: id, description: null }, at } })),
  id.map((id): AccessEvent => ({ type: 'PolicyDeleted', data: { id, at } })),
  fc
    .record({ policyId: id, permission })
    .map((data): AccessEvent => ({ type: 'PermissionAdded', data: { ...data, at } })),
  fc
    .record({ policyId: id, permissionId: id })
    .map((data): AccessEvent => ({ type: 'PermissionRemoved', data: { ...data, at } })),
  fc.record({ policyId: id, target }).map((data): AccessEvent => ({ type: 'PolicyAttached', data: { ...data, at } })),
  fc.record({ policyId: id, target }).map((data): AccessEvent => ({ type: 'PolicyDetached', data: { ...data, at } })),
  id.map((id): AccessEvent => ({ type: 'TeamCreated', data: { team: { id, name: id }, at } })),
  id.map((id): AccessEvent => ({ type: 'TeamUpdated', data: { id, name: 'n', at } })),
  fc
    .record({ teamId: id, userId: id })
    .map((data): AccessEvent => ({ type: 'TeamMemberAdded', data: { ...data, at } })),
);

describe('accessDecider.evolve', () => {
  it('folds any log, keeps no record whose id names a prototype member, and lets every principal be evaluated', () => {
    fc.assert(
      fc.property(fc.array(event, { maxLength: 40 }), id, id, (events, roleId, userId) => {
        const s = fold(accessDecider, events);
        for (const m of [s.roles, s.policies, s.teams]) expect([...m.keys()].some(isInheritedName)).toBe(false);
        expect(s.attachments.some((a) => isInheritedName(a.policyId) || isInheritedName(a.target.id))).toBe(false);
        const set = effectivePermissions(s, { roleId, userId }, ruleVars(userId, roleId, new Date(at)));
        for (const r of set.rules) {
          expect(isInheritedName(r.collection)).toBe(false);
          expect(r.fields.some(isInheritedName)).toBe(false);
          expect(JSON.stringify(r.conditions)).not.toMatch(/"(__proto__|constructor|valueOf)"/);
        }
      }),
    );
  });

  it('skips an event of a type it does not know instead of failing', () => {
    const unknown = { type: 'RolesMergedInALaterVersion', data: { at } } as unknown as AccessEvent;
    const created: AccessEvent = { type: 'TeamCreated', data: { team: { id: 't', name: 'T' }, at } };
    expect([...fold(accessDecider, [unknown, created]).teams.keys()]).toEqual(['t']);
  });
});
