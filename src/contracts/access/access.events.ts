import type { DomainEvent } from '../../kernel/es/event.ts';
import type { AttachTarget, PermissionDef, PolicyDef, RoleDef, TeamDef } from './access.types.ts';

/** Roles, policies, their rules and attachments, and teams of one site: one stream, so every check sees all. */
export type RoleCreated = DomainEvent<'RoleCreated', { role: RoleDef; at: string }>;
export type RoleUpdated = DomainEvent<'RoleUpdated', { id: string; changes: Partial<Omit<RoleDef, 'id'>>; at: string }>;
export type RoleDeleted = DomainEvent<'RoleDeleted', { id: string; at: string }>;
export type PolicyCreated = DomainEvent<'PolicyCreated', { policy: PolicyDef; at: string }>;
export type PolicyUpdated = DomainEvent<
  'PolicyUpdated',
  { id: string; changes: Partial<Omit<PolicyDef, 'id'>>; at: string }
>;
export type PolicyDeleted = DomainEvent<'PolicyDeleted', { id: string; at: string }>;
export type PermissionAdded = DomainEvent<
  'PermissionAdded',
  { policyId: string; permission: PermissionDef; at: string }
>;
export type PermissionRemoved = DomainEvent<
  'PermissionRemoved',
  { policyId: string; permissionId: string; at: string }
>;
export type PolicyAttached = DomainEvent<'PolicyAttached', { policyId: string; target: AttachTarget; at: string }>;
export type PolicyDetached = DomainEvent<'PolicyDetached', { policyId: string; target: AttachTarget; at: string }>;
export type TeamCreated = DomainEvent<'TeamCreated', { team: TeamDef; at: string }>;
export type TeamUpdated = DomainEvent<'TeamUpdated', { id: string; name: string; at: string }>;
export type TeamDeleted = DomainEvent<'TeamDeleted', { id: string; at: string }>;
export type TeamMemberAdded = DomainEvent<'TeamMemberAdded', { teamId: string; userId: string; at: string }>;
export type TeamMemberRemoved = DomainEvent<'TeamMemberRemoved', { teamId: string; userId: string; at: string }>;

export type AccessEvent =
  | RoleCreated
  | RoleUpdated
  | RoleDeleted
  | PolicyCreated
  | PolicyUpdated
  | PolicyDeleted
  | PermissionAdded
  | PermissionRemoved
  | PolicyAttached
  | PolicyDetached
  | TeamCreated
  | TeamUpdated
  | TeamDeleted
  | TeamMemberAdded
  | TeamMemberRemoved;

export const accessStream = (siteId: string) => `${siteId}/access/${siteId}`;
