import type { DomainEvent } from '../../kernel/es/event.ts';
import type { Sealed } from '../../kernel/privacy/pii.ts';

/** A user identity was created; personal data is sealed with the user's subject key. */
export type UserRegistered = DomainEvent<
  'UserRegistered',
  {
    userId: string;
    email: Sealed;
    passwordHash: Sealed;
    firstName: Sealed | null;
    lastName: Sealed | null;
    instanceAdmin: boolean;
    at: string;
  }
>;
/** A user was given a role on a site (a membership). */
export type UserSiteRoleGranted = DomainEvent<
  'UserSiteRoleGranted',
  { userId: string; siteId: string; role: string; at: string }
>;
/** An email address was claimed by a user: the log's unique constraint on addresses. */
export type EmailClaimed = DomainEvent<'EmailClaimed', { userId: string; at: string }>;

export type UserEvent = UserRegistered | UserSiteRoleGranted;

export const userStream = (userId: string) => `_system/user/${userId}`;
/** One stream per address (by hash, so the stream name holds no personal data). */
export const emailClaimStream = (emailHash: string) => `_system/email/${emailHash}`;
