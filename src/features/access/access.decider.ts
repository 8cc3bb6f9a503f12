import { assertNever, type Decider } from '../../kernel/es/decider.ts';
import {
  PermissionNotFound,
  PolicyNotFound,
  RoleHasChildren,
  RoleInheritanceCycle,
  RoleNameTaken,
  RoleNotFound,
  SystemRoleFixed,
  TeamNameTaken,
  TeamNotFound,
  UnknownAttachTarget,
  UnknownParentRole,
} from './access.errors.ts';
import type { AccessEvent } from '../../contracts/access/access.events.ts';
import { foldable } from './access.fold-guard.ts';
import {
  SYSTEM_ROLES,
  type AttachTarget,
  type PermissionDef,
  type PolicyDef,
  type RoleDef,
  type TeamDef,
} from '../../contracts/access/access.types.ts';

/** Maps keyed by ids: an id from a request or the log is never an object key (it might be `__proto__`). */
export interface AccessState {
  /** Custom roles (system roles are implicit). */
  roles: ReadonlyMap<string, RoleDef>;
  policies: ReadonlyMap<string, PolicyDef & { permissions: PermissionDef[] }>;
  attachments: { policyId: string; target: AttachTarget }[];
  teams: ReadonlyMap<string, TeamDef & { members: string[] }>;
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
export const roleExists = (s: AccessState, id: string) => SYSTEM.has(id) || s.roles.has(id);

/** The role, its parent, its parent's parent… (system roles have no parent). */
export function roleChain(s: AccessState, id: string): string[] {
  const chain: string[] = [];
  for (let r: string | null = id; r && !chain.includes(r); r = s.roles.get(r)?.parentId ?? null) chain.push(r);
  return chain;
}

const sameTarget = (a: AttachTarget, b: AttachTarget) => a.kind === b.kind && a.id === b.id;
/** A copy of `m` with `k` set to `v` (states are never changed in place: cached folds are shared). */
const put = <T>(m: ReadonlyMap<string, T>, k: string, v: T) => new Map(m).set(k, v);
const without = <T>(m: ReadonlyMap<string, T>, k: string) => {
  const out = new Map(m);
  out.delete(k);
  return out;
};

function checkRoleName(s: AccessState, name: string, except?: string): void {
  const taken =
    SYSTEM.has(name.toLowerCase()) ||
    [...s.roles.values()].some((r) => r.id !== except && r.name.toLowerCase() === name.toLowerCase());
  if (taken) throw new RoleNameTaken({ name });
}

function checkParent(s: AccessState, id: string, parentId: string | null): void {
  if (parentId === null) return;
  if (!roleExists(s, parentId)) throw new UnknownParentRole({ parentId });
  if (roleChain(s, parentId).includes(id)) throw new RoleInheritanceCycle();
}

type Cmd<T extends AccessCommand['type']> = Extract<AccessCommand, { type: T }>;

/** Detaches every attachment `match` picks, before the thing they are attached to goes. */
const detachAll = (s: AccessState, match: (a: AccessState['attachments'][number]) => boolean, at: string) =>
  s.attachments.filter(match).map((a): AccessEvent => ({ type: 'PolicyDetached', data: { ...a, at } }));

function createRole(cmd: Cmd<'CreateRole'>, s: AccessState): AccessEvent[] {
  const { now: at, ...role } = cmd.data;
  checkRoleName(s, role.name);
  checkParent(s, role.id, role.parentId);
  return [{ type: 'RoleCreated', data: { role, at } }];
}

function updateRole(cmd: Cmd<'UpdateRole'>, s: AccessState): AccessEvent[] {
  const { id, changes, now: at } = cmd.data;
  if (SYSTEM.has(id)) throw new SystemRoleFixed({ roleId: id, change: 'changed' });
  if (!s.roles.get(id)) throw new RoleNotFound({ roleId: id });
  if (changes.name !== undefined) checkRoleName(s, changes.name, id);
  if (changes.parentId !== undefined) checkParent(s, id, changes.parentId);
  return [{ type: 'RoleUpdated', data: { id, changes, at } }];
}

/** A role with child roles stays; its policies are detached before it goes. */
function deleteRole(cmd: Cmd<'DeleteRole'>, s: AccessState): AccessEvent[] {
  const { id, now: at } = cmd.data;
  if (SYSTEM.has(id)) throw new SystemRoleFixed({ roleId: id, change: 'deleted' });
  if (!s.roles.get(id)) throw new RoleNotFound({ roleId: id });
  const children = [...s.roles.values()].filter((r) => r.parentId === id);
  if (children.length) throw new RoleHasChildren({ roleId: id, children: children.map((c) => c.id) });
  const detached = detachAll(s, (a) => a.target.kind === 'role' && a.target.id === id, at);
  return [...detached, { type: 'RoleDeleted', data: { id, at } }];
}

function createPolicy(cmd: Cmd<'CreatePolicy'>): AccessEvent[] {
  const { now: at, ...policy } = cmd.data;
  return [{ type: 'PolicyCreated', data: { policy, at } }];
}

function updatePolicy(cmd: Cmd<'UpdatePolicy'>, s: AccessState): AccessEvent[] {
  const { id, changes, now: at } = cmd.data;
  if (!s.policies.get(id)) throw new PolicyNotFound({ policyId: id });
  return [{ type: 'PolicyUpdated', data: { id, changes, at } }];
}

/** A policy is detached from everything it is attached to before it goes. */
function deletePolicy(cmd: Cmd<'DeletePolicy'>, s: AccessState): AccessEvent[] {
  const { id, now: at } = cmd.data;
  if (!s.policies.get(id)) throw new PolicyNotFound({ policyId: id });
  const detached = detachAll(s, (a) => a.policyId === id, at);
  return [...detached, { type: 'PolicyDeleted', data: { id, at } }];
}

function addPermission(cmd: Cmd<'AddPermission'>, s: AccessState): AccessEvent[] {
  const { policyId, permission, now: at } = cmd.data;
  if (!s.policies.get(policyId)) throw new PolicyNotFound({ policyId });
  return [{ type: 'PermissionAdded', data: { policyId, permission, at } }];
}

function removePermission(cmd: Cmd<'RemovePermission'>, s: AccessState): AccessEvent[] {
  const p = s.policies.get(cmd.data.policyId);
  if (!p) throw new PolicyNotFound({ policyId: cmd.data.policyId });
  if (!p.permissions.some((x) => x.id === cmd.data.permissionId))
    throw new PermissionNotFound({ permissionId: cmd.data.permissionId });
  return [{ type: 'PermissionRemoved', data: { ...cmd.data, at: cmd.data.now } }];
}

/** Whether the policy is attached to the target, once both are known to exist (attaching and detaching ask alike). */
function attachedNow(s: AccessState, policyId: string, target: AttachTarget): boolean {
  if (!s.policies.get(policyId)) throw new PolicyNotFound({ policyId });
  if (target.kind === 'role' && !roleExists(s, target.id))
    throw new UnknownAttachTarget({ kind: 'role', id: target.id });
  if (target.kind === 'team' && !s.teams.get(target.id)) throw new UnknownAttachTarget({ kind: 'team', id: target.id });
  return s.attachments.some((a) => a.policyId === policyId && sameTarget(a.target, target));
}

/** Attaching an attached policy again changes nothing. */
function attachPolicy(cmd: Cmd<'AttachPolicy'>, s: AccessState): AccessEvent[] {
  const { policyId, target, now: at } = cmd.data;
  return attachedNow(s, policyId, target) ? [] : [{ type: 'PolicyAttached', data: { policyId, target, at } }];
}

/** Detaching a policy that is not attached changes nothing. */
function detachPolicy(cmd: Cmd<'DetachPolicy'>, s: AccessState): AccessEvent[] {
  const { policyId, target, now: at } = cmd.data;
  return attachedNow(s, policyId, target) ? [{ type: 'PolicyDetached', data: { policyId, target, at } }] : [];
}

function createTeam(cmd: Cmd<'CreateTeam'>, s: AccessState): AccessEvent[] {
  const { now: at, ...team } = cmd.data;
  if ([...s.teams.values()].some((t) => t.name.toLowerCase() === team.name.toLowerCase()))
    throw new TeamNameTaken({ name: team.name });
  return [{ type: 'TeamCreated', data: { team, at } }];
}

function updateTeam(cmd: Cmd<'UpdateTeam'>, s: AccessState): AccessEvent[] {
  const { id, name, now: at } = cmd.data;
  if (!s.teams.get(id)) throw new TeamNotFound({ teamId: id });
  return [{ type: 'TeamUpdated', data: { id, name, at } }];
}

/** The team's policies are detached before it goes. */
function deleteTeam(cmd: Cmd<'DeleteTeam'>, s: AccessState): AccessEvent[] {
  const { id, now: at } = cmd.data;
  if (!s.teams.get(id)) throw new TeamNotFound({ teamId: id });
  const detached = detachAll(s, (a) => a.target.kind === 'team' && a.target.id === id, at);
  return [...detached, { type: 'TeamDeleted', data: { id, at } }];
}

/** The team, which must exist, and whether the user is one of its members. */
function membership(s: AccessState, teamId: string, userId: string) {
  const team = s.teams.get(teamId);
  if (!team) throw new TeamNotFound({ teamId });
  return { team, member: team.members.includes(userId) };
}

/** Adding a member again changes nothing. */
function addTeamMember(cmd: Cmd<'AddTeamMember'>, s: AccessState): AccessEvent[] {
  const { userId, now: at } = cmd.data;
  const { team, member } = membership(s, cmd.data.teamId, userId);
  return member ? [] : [{ type: 'TeamMemberAdded', data: { teamId: team.id, userId, at } }];
}

/** Removing someone who is not a member changes nothing. */
function removeTeamMember(cmd: Cmd<'RemoveTeamMember'>, s: AccessState): AccessEvent[] {
  const { userId, now: at } = cmd.data;
  const { team, member } = membership(s, cmd.data.teamId, userId);
  return member ? [{ type: 'TeamMemberRemoved', data: { teamId: team.id, userId, at } }] : [];
}

export const accessDecider: Decider<AccessState, AccessCommand, AccessEvent> = {
  initialState: () => ({ roles: new Map(), policies: new Map(), attachments: [], teams: new Map() }),
  evolve: (s, e) => (foldable(e) ? evolve(s, e) : s),
  decide: (cmd, s) => {
    switch (cmd.type) {
      case 'CreateRole':
        return createRole(cmd, s);
      case 'UpdateRole':
        return updateRole(cmd, s);
      case 'DeleteRole':
        return deleteRole(cmd, s);
      case 'CreatePolicy':
        return createPolicy(cmd);
      case 'UpdatePolicy':
        return updatePolicy(cmd, s);
      case 'DeletePolicy':
        return deletePolicy(cmd, s);
      case 'AddPermission':
        return addPermission(cmd, s);
      case 'RemovePermission':
        return removePermission(cmd, s);
      case 'AttachPolicy':
        return attachPolicy(cmd, s);
      case 'DetachPolicy':
        return detachPolicy(cmd, s);
      case 'CreateTeam':
        return createTeam(cmd, s);
      case 'UpdateTeam':
        return updateTeam(cmd, s);
      case 'DeleteTeam':
        return deleteTeam(cmd, s);
      case 'AddTeamMember':
        return addTeamMember(cmd, s);
      case 'RemoveTeamMember':
        return removeTeamMember(cmd, s);
      default:
        return assertNever(cmd);
    }
  },
};

function evolve(s: AccessState, e: AccessEvent): AccessState {
  switch (e.type) {
    case 'RoleCreated':
      return { ...s, roles: put(s.roles, e.data.role.id, e.data.role) };
    case 'RoleUpdated': {
      const r = s.roles.get(e.data.id);
      return r ? { ...s, roles: put(s.roles, r.id, { ...r, ...e.data.changes }) } : s;
    }
    case 'RoleDeleted':
      return { ...s, roles: without(s.roles, e.data.id) };
    case 'PolicyCreated':
      return { ...s, policies: put(s.policies, e.data.policy.id, { ...e.data.policy, permissions: [] }) };
    case 'PolicyUpdated': {
      const p = s.policies.get(e.data.id);
      return p ? { ...s, policies: put(s.policies, p.id, { ...p, ...e.data.changes }) } : s;
    }
    case 'PolicyDeleted':
      return { ...s, policies: without(s.policies, e.data.id) };
    case 'PermissionAdded': {
      const p = s.policies.get(e.data.policyId);
      const permissions = p ? [...p.permissions, e.data.permission] : [];
      return p ? { ...s, policies: put(s.policies, p.id, { ...p, permissions }) } : s;
    }
    case 'PermissionRemoved': {
      const p = s.policies.get(e.data.policyId);
      const permissions = p ? p.permissions.filter((x) => x.id !== e.data.permissionId) : [];
      return p ? { ...s, policies: put(s.policies, p.id, { ...p, permissions }) } : s;
    }
    case 'PolicyAttached':
      return { ...s, attachments: [...s.attachments, { policyId: e.data.policyId, target: e.data.target }] };
    case 'PolicyDetached': {
      const { policyId, target } = e.data;
      return {
        ...s,
        attachments: s.attachments.filter((a) => !(a.policyId === policyId && sameTarget(a.target, target))),
      };
    }
    case 'TeamCreated':
      return { ...s, teams: put(s.teams, e.data.team.id, { ...e.data.team, members: [] }) };
    case 'TeamUpdated': {
      const t = s.teams.get(e.data.id);
      return t ? { ...s, teams: put(s.teams, t.id, { ...t, name: e.data.name }) } : s;
    }
    case 'TeamDeleted':
      return { ...s, teams: without(s.teams, e.data.id) };
    case 'TeamMemberAdded':
    case 'TeamMemberRemoved': {
      const t = s.teams.get(e.data.teamId);
      if (!t) return s;
      const others = t.members.filter((m) => m !== e.data.userId);
      const members = e.type === 'TeamMemberAdded' ? [...others, e.data.userId] : others;
      return { ...s, teams: put(s.teams, t.id, { ...t, members }) };
    }
    default:
      return assertNever(e);
  }
}
