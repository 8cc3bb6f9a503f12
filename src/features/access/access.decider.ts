import { assertNever, type Decider } from '../../kernel/es/decider.ts';
import { DomainError } from '../../kernel/http/errors.ts';
import { own } from '../../kernel/safe/keys.ts';
import type { AccessEvent } from './access.events.ts';
import {
  SYSTEM_ROLES,
  type AttachTarget,
  type PermissionDef,
  type PolicyDef,
  type RoleDef,
  type TeamDef,
} from './access.types.ts';

export interface AccessState {
  /** Custom roles (system roles are implicit). */
  roles: Record<string, RoleDef>;
  policies: Record<string, PolicyDef & { permissions: PermissionDef[] }>;
  attachments: { policyId: string; target: AttachTarget }[];
  teams: Record<string, TeamDef & { members: string[] }>;
}

type Now = { now: string };
export type AccessCommand =
  | { type: 'CreateRole'; data: RoleDef & Now }
  | { type: 'UpdateRole'; data: { id: string; changes: Partial<Omit<RoleDef, 'id'>> } & Now }
  | { type: 'DeleteRole'; data: { id: string } & Now }
  | { type: 'CreatePolicy'; data: PolicyDef & Now }
  | { type: 'UpdatePolicy'; data: { id: string; changes: Partial<Omit<PolicyDef, 'id'>> } & Now }
  | { type: 'DeletePolicy'; data: { id: string } & Now }
  | { type: 'AddPermission'; data: { policyId: string; permission: PermissionDef } & Now }
  | { type: 'RemovePermission'; data: { policyId: string; permissionId: string } & Now }
  | { type: 'AttachPolicy'; data: { policyId: string; target: AttachTarget } & Now }
  | { type: 'DetachPolicy'; data: { policyId: string; target: AttachTarget } & Now }
  | { type: 'CreateTeam'; data: TeamDef & Now }
  | { type: 'UpdateTeam'; data: { id: string; name: string } & Now }
  | { type: 'DeleteTeam'; data: { id: string } & Now }
  | { type: 'AddTeamMember'; data: { teamId: string; userId: string } & Now }
  | { type: 'RemoveTeamMember'; data: { teamId: string; userId: string } & Now };

const SYSTEM = new Set<string>(SYSTEM_ROLES);
export const roleExists = (s: AccessState, id: string) => SYSTEM.has(id) || Object.hasOwn(s.roles, id);

/** The role, its parent, its parent's parent… (system roles have no parent). */
export function roleChain(s: AccessState, id: string): string[] {
  const chain: string[] = [];
  for (let r: string | null = id; r && !chain.includes(r); r = own(s.roles, r)?.parentId ?? null) chain.push(r);
  return chain;
}

const notFound = (what: string, id: string) => new DomainError('NOT_FOUND', `${what} ${id} not found`);
const invalid = (message: string, path: string[]) => new DomainError('VALIDATION_FAILED', message, { path });
const sameTarget = (a: AttachTarget, b: AttachTarget) => a.kind === b.kind && a.id === b.id;
const without = <T>(r: Record<string, T>, k: string) => Object.fromEntries(Object.entries(r).filter(([x]) => x !== k));

function checkRoleName(s: AccessState, name: string, except?: string): void {
  const taken =
    SYSTEM.has(name.toLowerCase()) ||
    Object.values(s.roles).some((r) => r.id !== except && r.name.toLowerCase() === name.toLowerCase());
  if (taken) throw new DomainError('CONFLICT', `a role named ${name} exists`, { path: ['name'] });
}

function checkParent(s: AccessState, id: string, parentId: string | null): void {
  if (parentId === null) return;
  if (!roleExists(s, parentId)) throw invalid(`parent role ${parentId} does not exist`, ['parentId']);
  if (roleChain(s, parentId).includes(id))
    throw invalid('a role cannot inherit from itself or its descendants', ['parentId']);
}

export const accessDecider: Decider<AccessState, AccessCommand, AccessEvent> = {
  initialState: () => ({ roles: {}, policies: {}, attachments: [], teams: {} }),
  evolve: (s, e) => {
    switch (e.type) {
      case 'RoleCreated':
        return { ...s, roles: { ...s.roles, [e.data.role.id]: e.data.role } };
      case 'RoleUpdated': {
        const r = own(s.roles, e.data.id);
        return r ? { ...s, roles: { ...s.roles, [e.data.id]: { ...r, ...e.data.changes } } } : s;
      }
      case 'RoleDeleted':
        return { ...s, roles: without(s.roles, e.data.id) };
      case 'PolicyCreated':
        return { ...s, policies: { ...s.policies, [e.data.policy.id]: { ...e.data.policy, permissions: [] } } };
      case 'PolicyUpdated': {
        const p = own(s.policies, e.data.id);
        return p ? { ...s, policies: { ...s.policies, [e.data.id]: { ...p, ...e.data.changes } } } : s;
      }
      case 'PolicyDeleted':
        return { ...s, policies: without(s.policies, e.data.id) };
      case 'PermissionAdded': {
        const p = own(s.policies, e.data.policyId);
        if (!p) return s;
        return {
          ...s,
          policies: { ...s.policies, [p.id]: { ...p, permissions: [...p.permissions, e.data.permission] } },
        };
      }
      case 'PermissionRemoved': {
        const p = own(s.policies, e.data.policyId);
        if (!p) return s;
        const permissions = p.permissions.filter((x) => x.id !== e.data.permissionId);
        return { ...s, policies: { ...s.policies, [p.id]: { ...p, permissions } } };
      }
      case 'PolicyAttached':
        return { ...s, attachments: [...s.attachments, { policyId: e.data.policyId, target: e.data.target }] };
      case 'PolicyDetached':
        return {
          ...s,
          attachments: s.attachments.filter(
            (a) => !(a.policyId === e.data.policyId && sameTarget(a.target, e.data.target)),
          ),
        };
      case 'TeamCreated':
        return { ...s, teams: { ...s.teams, [e.data.team.id]: { ...e.data.team, members: [] } } };
      case 'TeamUpdated': {
        const t = own(s.teams, e.data.id);
        return t ? { ...s, teams: { ...s.teams, [e.data.id]: { ...t, name: e.data.name } } } : s;
      }
      case 'TeamDeleted':
        return { ...s, teams: without(s.teams, e.data.id) };
      case 'TeamMemberAdded': {
        const t = own(s.teams, e.data.teamId);
        if (!t) return s;
        return { ...s, teams: { ...s.teams, [t.id]: { ...t, members: [...t.members, e.data.userId] } } };
      }
      case 'TeamMemberRemoved': {
        const t = own(s.teams, e.data.teamId);
        if (!t) return s;
        const members = t.members.filter((m) => m !== e.data.userId);
        return { ...s, teams: { ...s.teams, [t.id]: { ...t, members } } };
      }
      default:
        return assertNever(e);
    }
  },
  decide: (cmd, s) => {
    const at = cmd.data.now;
    switch (cmd.type) {
      case 'CreateRole': {
        const { now: _n, ...role } = cmd.data;
        checkRoleName(s, role.name);
        checkParent(s, role.id, role.parentId);
        return [{ type: 'RoleCreated', data: { role, at } }];
      }
      case 'UpdateRole': {
        const { id, changes } = cmd.data;
        if (SYSTEM.has(id)) throw new DomainError('PERMISSION_DENIED', `system role ${id} cannot be changed`);
        if (!own(s.roles, id)) throw notFound('role', id);
        if (changes.name !== undefined) checkRoleName(s, changes.name, id);
        if (changes.parentId !== undefined) checkParent(s, id, changes.parentId);
        return [{ type: 'RoleUpdated', data: { id, changes, at } }];
      }
      case 'DeleteRole': {
        const { id } = cmd.data;
        if (SYSTEM.has(id)) throw new DomainError('PERMISSION_DENIED', `system role ${id} cannot be deleted`);
        if (!own(s.roles, id)) throw notFound('role', id);
        const children = Object.values(s.roles).filter((r) => r.parentId === id);
        if (children.length)
          throw new DomainError('CONFLICT', `role ${id} is the parent of ${children.map((c) => c.id).join(', ')}`);
        const detached: AccessEvent[] = s.attachments
          .filter((a) => a.target.kind === 'role' && a.target.id === id)
          .map((a) => ({ type: 'PolicyDetached', data: { ...a, at } }));
        return [...detached, { type: 'RoleDeleted', data: { id, at } }];
      }
      case 'CreatePolicy': {
        const { now: _n, ...policy } = cmd.data;
        return [{ type: 'PolicyCreated', data: { policy, at } }];
      }
      case 'UpdatePolicy':
        if (!own(s.policies, cmd.data.id)) throw notFound('policy', cmd.data.id);
        return [{ type: 'PolicyUpdated', data: { id: cmd.data.id, changes: cmd.data.changes, at } }];
      case 'DeletePolicy': {
        const { id } = cmd.data;
        if (!own(s.policies, id)) throw notFound('policy', id);
        const detached: AccessEvent[] = s.attachments
          .filter((a) => a.policyId === id)
          .map((a) => ({ type: 'PolicyDetached', data: { ...a, at } }));
        return [...detached, { type: 'PolicyDeleted', data: { id, at } }];
      }
      case 'AddPermission':
        if (!own(s.policies, cmd.data.policyId)) throw notFound('policy', cmd.data.policyId);
        return [
          { type: 'PermissionAdded', data: { policyId: cmd.data.policyId, permission: cmd.data.permission, at } },
        ];
      case 'RemovePermission': {
        const p = own(s.policies, cmd.data.policyId);
        if (!p) throw notFound('policy', cmd.data.policyId);
        if (!p.permissions.some((x) => x.id === cmd.data.permissionId))
          throw notFound('permission', cmd.data.permissionId);
        return [{ type: 'PermissionRemoved', data: { ...cmd.data, at } }];
      }
      case 'AttachPolicy':
      case 'DetachPolicy': {
        const { policyId, target } = cmd.data;
        if (!own(s.policies, policyId)) throw notFound('policy', policyId);
        if (target.kind === 'role' && !roleExists(s, target.id))
          throw invalid(`role ${target.id} does not exist`, ['id']);
        if (target.kind === 'team' && !own(s.teams, target.id))
          throw invalid(`team ${target.id} does not exist`, ['id']);
        const attached = s.attachments.some((a) => a.policyId === policyId && sameTarget(a.target, target));
        if (cmd.type === 'AttachPolicy')
          return attached ? [] : [{ type: 'PolicyAttached', data: { policyId, target, at } }];
        return attached ? [{ type: 'PolicyDetached', data: { policyId, target, at } }] : [];
      }
      case 'CreateTeam': {
        const { now: _n, ...team } = cmd.data;
        if (Object.values(s.teams).some((t) => t.name.toLowerCase() === team.name.toLowerCase()))
          throw new DomainError('CONFLICT', `a team named ${team.name} exists`, { path: ['name'] });
        return [{ type: 'TeamCreated', data: { team, at } }];
      }
      case 'UpdateTeam':
        if (!own(s.teams, cmd.data.id)) throw notFound('team', cmd.data.id);
        return [{ type: 'TeamUpdated', data: { id: cmd.data.id, name: cmd.data.name, at } }];
      case 'DeleteTeam': {
        const { id } = cmd.data;
        if (!own(s.teams, id)) throw notFound('team', id);
        const detached: AccessEvent[] = s.attachments
          .filter((a) => a.target.kind === 'team' && a.target.id === id)
          .map((a) => ({ type: 'PolicyDetached', data: { ...a, at } }));
        return [...detached, { type: 'TeamDeleted', data: { id, at } }];
      }
      case 'AddTeamMember':
      case 'RemoveTeamMember': {
        const t = own(s.teams, cmd.data.teamId);
        if (!t) throw notFound('team', cmd.data.teamId);
        const member = t.members.includes(cmd.data.userId);
        if (cmd.type === 'AddTeamMember')
          return member ? [] : [{ type: 'TeamMemberAdded', data: { teamId: t.id, userId: cmd.data.userId, at } }];
        return member ? [{ type: 'TeamMemberRemoved', data: { teamId: t.id, userId: cmd.data.userId, at } }] : [];
      }
      default:
        return assertNever(cmd);
    }
  },
};
