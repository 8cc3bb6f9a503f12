import { defineError } from '../../../kernel/http/errors.ts';

type Site = { userId: string; siteId: string };

/** A body names both or neither of roleId and roleKey. */
export const RoleChoiceRequired = defineError(
  'VALIDATION_FAILED',
  'invalid',
  () => 'name exactly one of roleId and roleKey',
  () => ({ path: ['roleId'] }),
);

/** The role named is not one of the site's. */
export const UnknownRole = defineError<{ role: string; path: string[] }>(
  'VALIDATION_FAILED',
  'invalid',
  (d) => `role ${d.role} does not exist on this site`,
  (d) => ({ path: d.path }),
);

/** A site admin without the admin role grants the admin role. */
export const AdminGrantDenied = defineError<{ path: string[] }>(
  'PERMISSION_DENIED',
  'forbidden',
  () => 'only an administrator may grant the admin role',
  (d) => ({ path: d.path }),
);

/** A caller changes their own role or membership. */
export const SelfManagement = defineError<{ what: string }>(
  'PERMISSION_DENIED',
  'forbidden',
  (d) => `you cannot ${d.what} yourself`,
);

/** A site admin without the admin role changes an administrator. */
export const AdminManagement = defineError<{ what: string }>(
  'PERMISSION_DENIED',
  'forbidden',
  (d) => `only an administrator may ${d.what} an administrator`,
);

/** A site admin renames an account, which is its owner's (it may belong to other sites too). */
export const RenameDenied = defineError<{ field: 'firstName' | 'lastName' }>(
  'PERMISSION_DENIED',
  'forbidden',
  () => 'only the account’s owner or an instance administrator changes its names',
  (d) => ({ path: [d.field] }),
);

/** An invitation for an address that is a member of the site already (the caller sees its members anyway). */
export const AlreadyMember = defineError(
  'CONFLICT',
  'conflict',
  () => 'this address is already a member of the site',
  () => ({ path: ['email'] }),
);

/** An invitation link of a site whose invitation was accepted or withdrawn meanwhile. */
export const InvitationClosed = defineError(
  'VALIDATION_FAILED',
  'invalid',
  () => 'this invitation was already accepted or withdrawn',
  () => ({ path: ['token'] }),
);

/** A membership is removed that does not exist. */
export const NotAMember = defineError<Site>(
  'NOT_FOUND',
  'not_found',
  (d) => `user ${d.userId} is not a member of site ${d.siteId}`,
);

/** An account that has a password accepts an invitation with another one. */
export const InvitedPasswordMismatch = defineError(
  'UNAUTHENTICATED',
  'unauthenticated',
  () => 'the password does not match the invited account',
  () => ({ path: ['password'] }),
);

/** An administrator tries to impersonate an administrator. */
export const AdminImpersonation = defineError(
  'PERMISSION_DENIED',
  'forbidden',
  () => 'administrators cannot be impersonated',
);

/** An administrator tries to impersonate themselves. */
export const SelfImpersonation = defineError('PERMISSION_DENIED', 'forbidden', () => 'you are yourself already');
