import type { AccessState } from '../access.decider.ts';
import { PolicyNotFound, RoleNotFound, TeamNotFound } from '../access.errors.ts';
import { SYSTEM_ROLES } from '../../../contracts/access/access.types.ts';

const policiesOf = (s: AccessState, kind: 'role' | 'user' | 'team', id: string) =>
  s.attachments.filter((a) => a.target.kind === kind && a.target.id === id).map((a) => a.policyId);

/** A role as the API shows it, with the policies attached to it (404 for an unknown role). */
export function roleView(s: AccessState, id: string) {
  if ((SYSTEM_ROLES as readonly string[]).includes(id))
    return { id, name: id, description: null, parentId: null, system: true, policies: policiesOf(s, 'role', id) };
  const r = s.roles.get(id);
  if (!r) throw new RoleNotFound({ roleId: id });
  return { ...r, system: false, policies: policiesOf(s, 'role', id) };
}

/** A policy with its rules and what it is attached to (404 for an unknown policy). */
export function policyView(s: AccessState, id: string) {
  const p = s.policies.get(id);
  if (!p) throw new PolicyNotFound({ policyId: id });
  return { ...p, attachedTo: s.attachments.filter((a) => a.policyId === id).map((a) => a.target) };
}

/** A team with its members and policies (404 for an unknown team). */
export function teamView(s: AccessState, id: string) {
  const t = s.teams.get(id);
  if (!t) throw new TeamNotFound({ teamId: id });
  return { ...t, policies: policiesOf(s, 'team', id) };
}
