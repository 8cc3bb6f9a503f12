import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { fold } from '../../kernel/es/decider.ts';
import { runCommands } from '../../../test/support/decider-spec.ts';
import { userDecider, type UserCommand } from './user.decider.ts';

const userId = 'u1';
const now = '2026-03-01T10:00:00.000Z';
const site = fc.constantFrom('a', 'b', 'c');
const role = fc.constantFrom('viewer', 'editor');
const register: UserCommand = {
  type: 'RegisterUser',
  data: {
    userId,
    email: 'pii:e',
    passwordHash: null,
    firstName: null,
    lastName: null,
    instanceAdmin: false,
    now,
  },
};
const membershipCommand: fc.Arbitrary<UserCommand> = fc.oneof(
  fc.record({
    type: fc.constant('InviteToSite' as const),
    data: fc.record({
      userId: fc.constant(userId),
      siteId: site,
      role,
      invitationId: fc.constantFrom('i1', 'i2'),
      invitedBy: fc.constant('admin'),
      now: fc.constant(now),
    }),
  }),
  fc.record({
    type: fc.constant('AcceptSiteInvitation' as const),
    data: fc.record({ userId: fc.constant(userId), siteId: site, now: fc.constant(now) }),
  }),
  fc.record({
    type: fc.constant('GrantSiteRole' as const),
    data: fc.record({ userId: fc.constant(userId), siteId: site, role, now: fc.constant(now) }),
  }),
  fc.record({
    type: fc.constant('RevokeSiteRole' as const),
    data: fc.record({ userId: fc.constant(userId), siteId: site, now: fc.constant(now) }),
  }),
);

describe('User decider properties (memberships and invitations)', () => {
  it('folding the accepted events from scratch gives the state reached step by step', () =>
    fc.assert(
      fc.property(fc.array(membershipCommand, { maxLength: 30 }), (cmds) => {
        const { state, events } = runCommands(userDecider, [register, ...cmds]);
        expect(fold(userDecider, events)).toEqual(state);
      }),
      { numRuns: 2000 },
    ));
  it('becomes a member of a site only by a grant or by accepting that site’s open invitation, with its role', () =>
    fc.assert(
      fc.property(fc.array(membershipCommand, { maxLength: 30 }), (cmds) => {
        let state = fold(userDecider, runCommands(userDecider, [register]).events);
        for (const cmd of cmds) {
          const before = state;
          const after = runCommands({ ...userDecider, initialState: () => before }, [cmd]).state;
          if (!before.exists || !after.exists) return;
          for (const s of Object.keys(after.roles)) {
            if (Object.hasOwn(before.roles, s)) continue;
            if (cmd.type === 'GrantSiteRole') continue;
            expect(cmd.type).toBe('AcceptSiteInvitation');
            expect(after.roles[s]).toBe(before.invitations[s]?.role);
          }
          for (const s of Object.keys(after.invitations)) expect(Object.hasOwn(after.roles, s)).toBe(false);
          state = after;
        }
      }),
      { numRuns: 2000 },
    ));
});
