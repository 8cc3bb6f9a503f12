import { assertNever, type Decider } from '../../kernel/es/decider.ts';
import type { Sealed } from '../../platform/privacy/pii.ts';
import { dict, dictFrom, own } from '../../kernel/safe/keys.ts';
import type { UserEvent, UserRegistered, UserTokensRevoked } from '../../contracts/auth/user.events.ts';
import { AlreadyErased, ResetLinkSpent, UserExists, UserNotFound } from './auth.errors.ts';
import { AlreadyMember, InvitationClosed, NotAMember } from './users/users.errors.ts';

export type UserState =
  | { exists: false }
  | {
      exists: true;
      roles: Record<string, string>;
      status: 'active' | 'unverified' | 'invited';
      tokenVersion: number;
      /** Counts password changes: a reset token names the version it may replace. */
      passwordVersion: number;
      preferences: Record<string, unknown>;
      /** Open invitations: site → the role offered (the latest invitation of a site replaces the earlier). */
      invitations: Record<string, { role: string; invitationId: string }>;
      /** Erased: no sign-in, no membership, nothing to change any more. */
      erased?: boolean;
    };

/** Create a user identity. */
export type RegisterUser = { type: 'RegisterUser'; data: Omit<UserRegistered['data'], 'at'> & { now: string } };
/** Give a user a role on a site. */
export type GrantSiteRole = {
  type: 'GrantSiteRole';
  data: { userId: string; siteId: string; role: string; now: string };
};
export type VerifyEmail = { type: 'VerifyEmail'; data: { userId: string; now: string } };
/**
 * Set a new password. `change` needs the caller to have proven the old one; `reset` names the password
 * version the emailed token was made for, so a token works once and never after another change.
 */
export type ChangePassword = {
  type: 'ChangePassword';
  data: { userId: string; passwordHash: Sealed; reason: 'change' | 'reset'; passwordVersion?: number; now: string };
};
export type RevokeTokens = {
  type: 'RevokeTokens';
  data: { userId: string; reason: UserTokensRevoked['data']['reason']; now: string };
};
export type RequestPasswordReset = { type: 'RequestPasswordReset'; data: { userId: string; now: string } };
export type ChangePreferences = {
  type: 'ChangePreferences';
  data: { userId: string; patch: Record<string, unknown>; now: string };
};
export type ChangeProfile = {
  type: 'ChangeProfile';
  data: { userId: string; firstName: Sealed | null; lastName: Sealed | null; now: string };
};
export type RevokeSiteRole = { type: 'RevokeSiteRole'; data: { userId: string; siteId: string; now: string } };
/** Note that someone signed up with this account's address (the owner gets a mail). */
export type RecordSignUpAttempt = {
  type: 'RecordSignUpAttempt';
  data: { userId: string; siteId: string; now: string };
};
/** Offer this account a role on a site; nothing changes for it until the owner accepts. */
export type InviteToSite = {
  type: 'InviteToSite';
  data: { userId: string; siteId: string; role: string; invitationId: string; invitedBy: string; now: string };
};
/** The owner accepts the open invitation of a site: the membership begins with the role offered. */
export type AcceptSiteInvitation = {
  type: 'AcceptSiteInvitation';
  data: { userId: string; siteId: string; now: string };
};
/** Erase the person (their key is destroyed by the caller, whose fingerprint this records). */
export type EraseUser = {
  type: 'EraseUser';
  data: { userId: string; erasureId: string; keyFingerprint: string | null; reason: string; by: string; now: string };
};
export type UserCommand =
  | EraseUser
  | RegisterUser
  | GrantSiteRole
  | VerifyEmail
  | ChangePassword
  | RevokeTokens
  | RequestPasswordReset
  | ChangePreferences
  | ChangeProfile
  | RevokeSiteRole
  | RecordSignUpAttempt
  | InviteToSite
  | AcceptSiteInvitation;

type Existing = Extract<UserState, { exists: true }>;

const without = <T>(map: Record<string, T>, key: string) => dictFrom(Object.entries(map).filter(([k]) => k !== key));

const merge = (prefs: Record<string, unknown>, patch: Record<string, unknown>) => {
  const next = { ...prefs, ...patch };
  for (const [k, v] of Object.entries(patch)) if (v === null) delete next[k];
  return next;
};

const revoked = (s: Existing, userId: string, reason: RevokeTokens['data']['reason'], now: string): UserEvent => ({
  type: 'UserTokensRevoked',
  data: { userId, tokenVersion: s.tokenVersion + 1, reason, at: now },
});

export const userDecider: Decider<UserState, UserCommand, UserEvent> = {
  initialState: () => ({ exists: false }),
  evolve: (s, e) => {
    if (e.type === 'UserRegistered')
      return {
        exists: true,
        roles: dict<string>(),
        status: e.data.status ?? 'active',
        tokenVersion: 0,
        passwordVersion: 0,
        preferences: {},
        invitations: dict<{ role: string; invitationId: string }>(),
      };
    if (!s.exists) return s;
    switch (e.type) {
      case 'UserSiteRoleGranted':
        return {
          ...s,
          roles: dictFrom([...Object.entries(s.roles), [e.data.siteId, e.data.role]]),
          invitations: without(s.invitations, e.data.siteId),
        };
      case 'UserEmailVerified':
        return { ...s, status: 'active' };
      case 'UserPasswordChanged':
        return { ...s, passwordVersion: s.passwordVersion + 1 };
      case 'UserTokensRevoked':
        return { ...s, tokenVersion: e.data.tokenVersion };
      case 'PasswordResetRequested':
        return s;
      case 'UserPreferencesChanged':
        return { ...s, preferences: merge(s.preferences, e.data.patch) };
      case 'UserProfileChanged':
        return s;
      case 'UserSiteRoleRevoked':
        return { ...s, roles: without(s.roles, e.data.siteId) };
      case 'UserSignUpAttempted':
        return s;
      case 'UserErased':
        return {
          ...s,
          erased: true,
          roles: dict<string>(),
          invitations: dict<{ role: string; invitationId: string }>(),
        };
      case 'UserSiteInvited':
        return {
          ...s,
          invitations: dictFrom([
            ...Object.entries(s.invitations),
            [e.data.siteId, { role: e.data.role, invitationId: e.data.invitationId }],
          ]),
        };
      default:
        return assertNever(e);
    }
  },
  decide: (cmd, s) => {
    if (cmd.type === 'RegisterUser') {
      if (s.exists) throw new UserExists({ userId: cmd.data.userId });
      const { now, ...rest } = cmd.data;
      return [{ type: 'UserRegistered', data: { ...rest, at: now } }];
    }
    if (!s.exists) throw new UserNotFound({ userId: cmd.data.userId });
    // An erased person is gone: nothing about them changes any more (an erasure repeated answers the first).
    if (s.erased)
      throw cmd.type === 'EraseUser'
        ? new AlreadyErased({ userId: cmd.data.userId })
        : new UserNotFound({ userId: cmd.data.userId });
    const { userId, now } = cmd.data;
    switch (cmd.type) {
      case 'EraseUser': {
        const { erasureId, keyFingerprint, reason, by } = cmd.data;
        return [
          revoked(s, userId, 'erasure', now),
          { type: 'UserErased', data: { userId, erasureId, keyFingerprint, reason, by, at: now } },
        ];
      }
      case 'GrantSiteRole':
        if (s.roles[cmd.data.siteId] === cmd.data.role) return [];
        return [
          {
            type: 'UserSiteRoleGranted',
            data: { userId, siteId: cmd.data.siteId, role: cmd.data.role, at: now },
          },
        ];
      case 'VerifyEmail':
        return s.status === 'unverified' ? [{ type: 'UserEmailVerified', data: { userId, at: now } }] : [];
      case 'ChangePassword': {
        const { reason, passwordHash, passwordVersion } = cmd.data;
        if (reason === 'reset' && passwordVersion !== s.passwordVersion) throw new ResetLinkSpent();
        const events: UserEvent[] = [{ type: 'UserPasswordChanged', data: { userId, passwordHash, reason, at: now } }];
        // Proving the address by a reset or invitation link also verifies it.
        if (reason === 'reset' && s.status !== 'active')
          events.push({ type: 'UserEmailVerified', data: { userId, at: now } });
        events.push(revoked(s, userId, reason === 'reset' ? 'reset' : 'password', now));
        return events;
      }
      case 'RevokeTokens':
        return [revoked(s, userId, cmd.data.reason, now)];
      case 'RequestPasswordReset':
        return [{ type: 'PasswordResetRequested', data: { userId, at: now } }];
      case 'ChangePreferences': {
        const changed = Object.entries(cmd.data.patch).some(
          ([k, v]) => JSON.stringify(s.preferences[k] ?? null) !== JSON.stringify(v),
        );
        return changed ? [{ type: 'UserPreferencesChanged', data: { userId, patch: cmd.data.patch, at: now } }] : [];
      }
      case 'ChangeProfile':
        return [
          {
            type: 'UserProfileChanged',
            data: { userId, firstName: cmd.data.firstName, lastName: cmd.data.lastName, at: now },
          },
        ];
      case 'RecordSignUpAttempt':
        return [{ type: 'UserSignUpAttempted', data: { userId, siteId: cmd.data.siteId, at: now } }];
      case 'InviteToSite': {
        const { siteId, role, invitationId, invitedBy } = cmd.data;
        if (own(s.roles, siteId) !== undefined) throw new AlreadyMember();
        return [{ type: 'UserSiteInvited', data: { userId, siteId, role, invitationId, invitedBy, at: now } }];
      }
      case 'AcceptSiteInvitation': {
        const open = own(s.invitations, cmd.data.siteId);
        if (!open) throw new InvitationClosed();
        return [{ type: 'UserSiteRoleGranted', data: { userId, siteId: cmd.data.siteId, role: open.role, at: now } }];
      }
      case 'RevokeSiteRole':
        if (own(s.roles, cmd.data.siteId) === undefined) throw new NotAMember({ userId, siteId: cmd.data.siteId });
        return [{ type: 'UserSiteRoleRevoked', data: { userId, siteId: cmd.data.siteId, at: now } }];
      default:
        return assertNever(cmd);
    }
  },
};
