import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { claimAt, resolveRole } from './external-claims.ts';
import { ROLE_KEYS } from '../../contracts/issuers/issuer.schema.ts';

const issuer = {
  roleMapping: {
    staff: { systemKey: 'editor' as const },
    boss: { roleId: 'site_admin' as const },
    guest: { systemKey: 'public' as const },
  },
  defaultRoleId: null,
};

describe('resolveRole', () => {
  it('maps a single string claim', () => expect(resolveRole(issuer, 'staff')).toBe('editor'));
  it('keeps the most privileged of several mapped roles', () =>
    expect(resolveRole(issuer, ['guest', 'boss', 'staff', 'unknown'])).toBe('site_admin'));
  it('gives null when nothing maps and there is no default', () => {
    for (const claim of [['unknown'], [], undefined, 42, 'toString', '__proto__', [{ staff: 1 }]])
      expect(resolveRole(issuer, claim)).toBeNull();
  });
  it('falls back to the default role', () =>
    expect(resolveRole({ ...issuer, defaultRoleId: 'viewer' }, ['unknown'])).toBe('viewer'));
  it('never gives a role outside the mapping and the default', () =>
    fc.assert(
      fc.property(fc.array(fc.constantFrom('staff', 'boss', 'guest', 'x', 'admin')), (claim) => {
        const role = resolveRole(issuer, claim);
        const allowed = claim.filter((c) => c in issuer.roleMapping);
        if (allowed.length === 0) expect(role).toBeNull();
        else expect(ROLE_KEYS).toContain(role);
        expect(role).not.toBe('admin');
      }),
    ));
});

describe('claimAt', () => {
  it('reads a top-level claim whose name holds dots', () =>
    expect(claimAt({ 'https://x.example/roles': ['a'] }, 'https://x.example/roles')).toEqual(['a']));
  it('reads a nested claim by dotted path', () =>
    expect(claimAt({ realm_access: { roles: ['a'] } }, 'realm_access.roles')).toEqual(['a']));
  it('does not read inherited properties', () => expect(claimAt({}, 'constructor')).toBeUndefined());
});
