import { describe, it } from 'vitest';
import { deciderSpec } from '../../../test/support/decider-spec.ts';
import { userDecider } from './user.decider.ts';
import type { UserEvent } from '../../contracts/auth/user.events.ts';

const given = deciderSpec(userDecider);
const now = '2026-03-01T10:00:00.000Z';
const userId = 'u1';
const registered = (status?: 'active' | 'unverified' | 'invited'): UserEvent => ({
  type: 'UserRegistered',
  data: {
    userId,
    email: 'pii:x',
    passwordHash: null,
    firstName: null,
    lastName: null,
    instanceAdmin: false,
    status,
    at: now,
  },
});
const member: UserEvent = { type: 'UserSiteRoleGranted', data: { userId, siteId: 'main', role: 'editor', at: now } };

describe('User', () => {
  it('grants a role once', () =>
    given([registered(), member])
      .when({ type: 'GrantSiteRole', data: { userId, siteId: 'main', role: 'editor', now } })
      .then([]));
  it('revokes a membership it has, and refuses one it has not', () => {
    given([registered(), member])
      .when({ type: 'RevokeSiteRole', data: { userId, siteId: 'main', now } })
      .then([{ type: 'UserSiteRoleRevoked', data: { userId, siteId: 'main', at: now } }]);
    given([registered(), member, { type: 'UserSiteRoleRevoked', data: { userId, siteId: 'main', at: now } }])
      .when({ type: 'RevokeSiteRole', data: { userId, siteId: 'main', now } })
      .thenThrows('NOT_FOUND');
  });
  it('activates an invited account when its link sets the password, and bumps the token version', () =>
    given([registered('invited')])
      .when({
        type: 'ChangePassword',
        data: { userId, passwordHash: 'pii:h', reason: 'reset', passwordVersion: 0, now },
      })
      .then([
        { type: 'UserPasswordChanged', data: { userId, passwordHash: 'pii:h', reason: 'reset', at: now } },
        { type: 'UserEmailVerified', data: { userId, at: now } },
        { type: 'UserTokensRevoked', data: { userId, tokenVersion: 1, reason: 'reset', at: now } },
      ]));
  it('refuses a reset link made for an older password', () =>
    given([
      registered(),
      { type: 'UserPasswordChanged', data: { userId, passwordHash: 'pii:h', reason: 'change', at: now } },
    ])
      .when({
        type: 'ChangePassword',
        data: { userId, passwordHash: 'pii:i', reason: 'reset', passwordVersion: 0, now },
      })
      .thenThrows('VALIDATION_FAILED'));
  it('records a profile change', () =>
    given([registered()])
      .when({ type: 'ChangeProfile', data: { userId, firstName: 'pii:f', lastName: null, now } })
      .then([{ type: 'UserProfileChanged', data: { userId, firstName: 'pii:f', lastName: null, at: now } }]));
  it('merges preferences and records only real changes', () => {
    given([registered(), { type: 'UserPreferencesChanged', data: { userId, patch: { theme: 'dark' }, at: now } }])
      .when({ type: 'ChangePreferences', data: { userId, patch: { theme: 'dark' }, now } })
      .then([]);
    given([registered()])
      .when({ type: 'ChangePreferences', data: { userId, patch: { theme: 'dark' }, now } })
      .then([{ type: 'UserPreferencesChanged', data: { userId, patch: { theme: 'dark' }, at: now } }]);
  });
  describe('when invited to a site', () => {
    const invite = {
      type: 'InviteToSite' as const,
      data: { userId, siteId: 'other', role: 'viewer', invitationId: 'i1', invitedBy: 'a', now },
    };
    const invited: UserEvent = {
      type: 'UserSiteInvited',
      data: { userId, siteId: 'other', role: 'viewer', invitationId: 'i1', invitedBy: 'a', at: now },
    };
    const accept = { type: 'AcceptSiteInvitation' as const, data: { userId, siteId: 'other', now } };
    it('records the offer and no membership', () => given([registered()]).when(invite).then([invited]));
    it('refuses to invite a member of the site with CONFLICT', () =>
      given([registered(), { ...member, data: { ...member.data, siteId: 'other' } }])
        .when(invite)
        .thenThrows('CONFLICT'));
    it('grants the role offered when the owner accepts, once', () => {
      given([registered(), invited])
        .when(accept)
        .then([{ type: 'UserSiteRoleGranted', data: { userId, siteId: 'other', role: 'viewer', at: now } }]);
      given([
        registered(),
        invited,
        { type: 'UserSiteRoleGranted', data: { userId, siteId: 'other', role: 'viewer', at: now } },
      ])
        .when(accept)
        .thenThrows('VALIDATION_FAILED');
    });
    it('refuses to accept an invitation never made', () =>
      given([registered()]).when(accept).thenThrows('VALIDATION_FAILED'));
  });
  it('records a sign-up attempt on a known address', () =>
    given([registered()])
      .when({ type: 'RecordSignUpAttempt', data: { userId, siteId: 'main', now } })
      .then([{ type: 'UserSignUpAttempted', data: { userId, siteId: 'main', at: now } }]));
  it('refuses commands for a user that does not exist', () =>
    given([]).when({ type: 'VerifyEmail', data: { userId, now } }).thenThrows('NOT_FOUND'));
});
