import { defineError } from '../../kernel/http/errors.ts';

type Role = { roleId: string };
type Policy = { policyId: string };
type Team = { teamId: string };
type Collection = { collection: string };

/** The role is neither a system role nor a custom role of the site. */
export const RoleNotFound = defineError<Role>('NOT_FOUND', 'not_found', (d) => `role ${d.roleId} not found`);

/** The policy does not exist on the site. */
export const PolicyNotFound = defineError<Policy>('NOT_FOUND', 'not_found', (d) => `policy ${d.policyId} not found`);

/** Removing a rule the policy does not hold. */
export const PermissionNotFound = defineError<{ permissionId: string }>(
  'NOT_FOUND',
  'not_found',
  (d) => `permission ${d.permissionId} not found`,
);

/** The team does not exist on the site. */
export const TeamNotFound = defineError<Team>('NOT_FOUND', 'not_found', (d) => `team ${d.teamId} not found`);

/** A role's name is a system role's or another custom role's (case-insensitively). */
export const RoleNameTaken = defineError<{ name: string }>(
  'CONFLICT',
  'conflict',
  (d) => `a role named ${d.name} exists`,
  () => ({ path: ['name'] }),
);

/** A team's name is another team's (case-insensitively). */
export const TeamNameTaken = defineError<{ name: string }>(
  'CONFLICT',
  'conflict',
  (d) => `a team named ${d.name} exists`,
  () => ({ path: ['name'] }),
);

/** A role names a parent that does not exist. */
export const UnknownParentRole = defineError<{ parentId: string }>(
  'VALIDATION_FAILED',
  'invalid',
  (d) => `parent role ${d.parentId} does not exist`,
  () => ({ path: ['parentId'] }),
);

/** A role's parent is the role itself or one of its descendants. */
export const RoleInheritanceCycle = defineError(
  'VALIDATION_FAILED',
  'invalid',
  () => 'a role cannot inherit from itself or its descendants',
  () => ({ path: ['parentId'] }),
);

/** Only an instance admin may make a role that inherits admin's powers. */
export const AdminParentForbidden = defineError(
  'PERMISSION_DENIED',
  'forbidden',
  () => 'only an administrator may create roles under admin',
  () => ({ path: ['parentId'] }),
);

/** System roles are fixed: they cannot be changed or deleted. */
export const SystemRoleFixed = defineError<Role & { change: 'changed' | 'deleted' }>(
  'PERMISSION_DENIED',
  'forbidden',
  (d) => `system role ${d.roleId} cannot be ${d.change}`,
);

/** Deleting a role that other roles inherit from. */
export const RoleHasChildren = defineError<Role & { children: string[] }>(
  'CONFLICT',
  'conflict',
  (d) => `role ${d.roleId} is the parent of ${d.children.join(', ')}`,
);

/** Deleting a role that users of the site hold. */
export const RoleHeld = defineError<Role & { holders: number }>(
  'CONFLICT',
  'conflict',
  (d) => `role ${d.roleId} is held by ${d.holders} user(s)`,
);

/** Attaching a policy to (or detaching it from) a role or team that does not exist. */
export const UnknownAttachTarget = defineError<{ kind: 'role' | 'team'; id: string }>(
  'VALIDATION_FAILED',
  'invalid',
  (d) => `${d.kind} ${d.id} does not exist`,
  () => ({ path: ['id'] }),
);

/** A policy attachment or team membership names a user who is not a member of the site. */
export const NotASiteMember = defineError<{ userId: string; path: string[] }>(
  'VALIDATION_FAILED',
  'invalid',
  (d) => `user ${d.userId} is not a member of this site`,
  (d) => ({ path: d.path }),
);

/** A rule that names an unknown collection or field, or whose conditions or validation do not compile. */
export const InvalidRule = defineError<{ reason: string; path: string[] }>(
  'VALIDATION_FAILED',
  'invalid',
  (d) => d.reason,
  (d) => ({ path: d.path }),
);

/** No rule of the caller's permissions allows the action on the collection. */
export const ActionDenied = defineError<Collection & { action: string }>(
  'PERMISSION_DENIED',
  'forbidden',
  (d) => `you may not ${d.action} ${d.collection}`,
);

/** An action for site admins, asked by someone else. */
export const SiteAdminRequired = defineError('PERMISSION_DENIED', 'forbidden', () => 'only site admins may do this');

/** Checking another user's permissions is a site admin's debugging tool. */
export const CheckOthersForbidden = defineError(
  'PERMISSION_DENIED',
  'forbidden',
  () => 'only site admins may check another user',
);

/** The user whose permissions are checked is not a member of the site. */
export const CheckedUserNotMember = defineError<{ userId: string }>(
  'NOT_FOUND',
  'not_found',
  (d) => `user ${d.userId} is not a member of this site`,
);

/** A permission check names a collection the site's schema does not have. */
export const CheckedCollectionNotFound = defineError<Collection>(
  'NOT_FOUND',
  'not_found',
  (d) => `collection ${d.collection} not found`,
);

/** A permission check names an item that does not exist. */
export const CheckedItemNotFound = defineError<{ itemId: string }>(
  'RECORD_NOT_FOUND',
  'not_found',
  (d) => `item ${d.itemId} not found`,
);

/** Subscribers have no read grant on the collection. */
export const NoSubscriberGrant = defineError<Collection>(
  'NOT_FOUND',
  'not_found',
  (d) => `subscribers have no access to ${d.collection}`,
);
