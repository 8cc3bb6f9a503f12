import type { AppDeps } from '../../../deps.ts';
import { roleOn } from '../../../kernel/auth/actor.ts';
import { actorOf, siteOf, type Principal } from '../../../kernel/http/access.ts';
import { findUserById, type UserRow } from '../../../../projections/users/index.ts';
import { roleIsKnown } from '../../access/index.ts';
import { UserNotFound } from '../auth.errors.ts';
import {
  AdminGrantDenied,
  AdminManagement,
  RenameDenied,
  RoleChoiceRequired,
  SelfManagement,
  UnknownRole,
} from './users.errors.ts';

/** A member of a site, with its role there. */
export type Member = UserRow & { role: string };

const ADMINS = new Set(['admin']);

/** The role a body names (roleId or roleKey, exactly one), checked to exist on the site and to be grantable. */
export async function grantableRole(
  deps: AppDeps,
  p: Principal,
  body: { roleId?: string; roleKey?: string },
): Promise<string> {
  if ((body.roleId === undefined) === (body.roleKey === undefined)) throw new RoleChoiceRequired();
  const role = (body.roleId ?? body.roleKey)!;
  const path = [body.roleId !== undefined ? 'roleId' : 'roleKey'];
  if (!(await roleIsKnown(deps, siteOf(p), role))) throw new UnknownRole({ role, path });
  if (ADMINS.has(role) && roleOn(actorOf(p), siteOf(p)) !== 'admin') throw new AdminGrantDenied({ path });
  return role;
}

/** A member of the caller's site that the caller may see (site admins never see instance admins), or 404. */
export async function member(deps: Pick<AppDeps, 'db'>, p: Principal, id: string): Promise<Member> {
  const user = await findUserById(deps.db, id);
  const role = user?.roles[siteOf(p)];
  if (!user || !role || (user.instanceAdmin && !actorOf(p).instanceAdmin)) throw new UserNotFound({ userId: id });
  return { ...user, role };
}

/** Only an administrator changes an administrator; nobody changes their own role or membership. */
export function mayManage(p: Principal, target: Member, what: string): void {
  if (target.userId === actorOf(p).id) throw new SelfManagement({ what });
  requireRank(p, target, what);
}

/**
 * The rank rule of every route that acts on a person (role, removal, sessions): the caller's rank on the site is at
 * least the target's, so only an administrator acts on an administrator (a site_admin on a peer or anyone below).
 */
export function requireRank(p: Principal, target: Pick<Member, 'role' | 'instanceAdmin'>, what: string): void {
  if ((ADMINS.has(target.role) || target.instanceAdmin) && roleOn(actorOf(p), siteOf(p)) !== 'admin')
    throw new AdminManagement({ what });
}

/**
 * Names belong to the account, which may be a member of other sites too: only its owner or an instance
 * administrator changes them. A site admin manages the membership (role, removal), nothing global.
 */
export function mayRename(p: Principal, target: UserRow, field: 'firstName' | 'lastName'): void {
  if (target.userId === actorOf(p).id || actorOf(p).instanceAdmin) return;
  throw new RenameDenied({ field });
}

/** A member as the membership routes answer it. */
export const memberView = (u: Member) => ({
  id: u.userId,
  email: u.email,
  firstName: u.firstName,
  lastName: u.lastName,
  role: u.role,
  status: u.status,
});
