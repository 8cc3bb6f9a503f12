import type { DomainEvent } from '../../kernel/es/event.ts';
import type { Sealed } from '../../platform/privacy/pii.ts';

/**
 * A user identity was created; personal data is sealed with the user's subject key. `status` is absent on
 * identities created before self-service sign-up existed: they are active.
 */
export type UserRegistered = DomainEvent<
  'UserRegistered',
  {
    userId: string;
    email: Sealed;
    passwordHash: Sealed | null;
    firstName: Sealed | null;
    lastName: Sealed | null;
    instanceAdmin: boolean;
    status?: 'active' | 'unverified' | 'invited';
    at: string;
  }
>;
/** A user was given a role on a site (a membership). */
export type UserSiteRoleGranted = DomainEvent<
  'UserSiteRoleGranted',
  { userId: string; siteId: string; role: string; at: string }
>;
/** The owner proved the address (self-service sign-up): the account may log in. */
export type UserEmailVerified = DomainEvent<'UserEmailVerified', { userId: string; at: string }>;
/** A new password: `reason` change (knew the old one) or reset (an emailed reset token). */
export type UserPasswordChanged = DomainEvent<
  'UserPasswordChanged',
  { userId: string; passwordHash: Sealed; reason: 'change' | 'reset'; at: string }
>;
/** Every token issued before is void: access tokens carry the version, sessions remember it. */
export type UserTokensRevoked = DomainEvent<
  'UserTokensRevoked',
  { userId: string; tokenVersion: number; reason: 'password' | 'reset' | 'tfa' | 'admin' | 'erasure'; at: string }
>;
/** Someone asked for a password reset link for this account (the link itself is never stored). */
export type PasswordResetRequested = DomainEvent<'PasswordResetRequested', { userId: string; at: string }>;
/** A shallow-merged change of the user's preferences (a key set to null is removed). */
export type UserPreferencesChanged = DomainEvent<
  'UserPreferencesChanged',
  { userId: string; patch: Record<string, unknown>; at: string }
>;
/** A site admin changed the user's names (sealed with the subject key). */
export type UserProfileChanged = DomainEvent<
  'UserProfileChanged',
  { userId: string; firstName: Sealed | null; lastName: Sealed | null; at: string }
>;
/** The user is no longer a member of the site (the identity stays, with its other sites). */
export type UserSiteRoleRevoked = DomainEvent<'UserSiteRoleRevoked', { userId: string; siteId: string; at: string }>;
/** Someone signed up with the address of this account on a site: the owner was told by mail. */
export type UserSignUpAttempted = DomainEvent<'UserSignUpAttempted', { userId: string; siteId: string; at: string }>;
/**
 * A site admin invited this account to a site with a role. It is not a member until its owner accepts by the
 * mailed link; a newer invitation to the same site replaces the role offered.
 */
export type UserSiteInvited = DomainEvent<
  'UserSiteInvited',
  { userId: string; siteId: string; role: string; invitationId: string; invitedBy: string; at: string }
>;
/**
 * The person was erased (crypto-shredding): their key is destroyed, so every value sealed for them in the log is
 * unreadable for good. Holds no personal data: the subject id, the destroyed key's fingerprint, who and why.
 */
export type UserErased = DomainEvent<
  'UserErased',
  { userId: string; erasureId: string; keyFingerprint: string | null; reason: string; by: string; at: string }
>;
/** An email address was claimed by a user: the log's unique constraint on addresses. */
export type EmailClaimed = DomainEvent<'EmailClaimed', { userId: string; at: string }>;

export type UserEvent =
  | UserRegistered
  | UserSiteRoleGranted
  | UserEmailVerified
  | UserPasswordChanged
  | UserTokensRevoked
  | PasswordResetRequested
  | UserPreferencesChanged
  | UserProfileChanged
  | UserSiteRoleRevoked
  | UserSignUpAttempted
  | UserSiteInvited
  | UserErased;

export const userStream = (userId: string) => `_system/user/${userId}`;
/** One stream per address, named by the address's keyed hash (`AddressHasher`): no personal data in the name. */
export const emailClaimStream = (addressHash: string) => `_system/email/${addressHash}`;
