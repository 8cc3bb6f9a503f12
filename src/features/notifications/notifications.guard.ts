import type { AppDeps } from '../../deps.ts';
import { roleOn, type Actor } from '../../kernel/auth/actor.ts';
import { actorOf, siteOf, type Principal } from '../../kernel/http/access.ts';
import { dictFrom, own } from '../../kernel/safe/keys.ts';
import { findUserById } from '../../../projections/users/index.ts';
import type { InboxViewer } from '../../../projections/notifications/index.ts';
import { roleChain, siteAccess } from '../access/index.ts';
import { InboxNeedsUser } from './notifications.errors.ts';
import type { Recipient } from '../../contracts/notifications/notifications.events.ts';

/** Roles up the chain whose notifications a holder of a role receives (the chain cannot loop; this bounds it). */
export const MAX_ROLE_DEPTH = 10;

/**
 * Whose notifications the caller receives: their own, those of their role and the roles above it, and the site
 * admins' when the authorizer says they are one. An API key has no inbox.
 */
export async function inboxViewer(
  deps: Pick<AppDeps, 'db' | 'store' | 'authorizer'>,
  p: Principal,
): Promise<InboxViewer> {
  const actor = actorOf(p);
  if (actor.type !== 'user') throw new InboxNeedsUser({});
  const siteId = siteOf(p);
  const role = roleOn(actor, siteId);
  const roles = role ? roleChain((await siteAccess(deps, siteId)).state, role).slice(0, MAX_ROLE_DEPTH) : [];
  return { userId: actor.id, roles, admin: deps.authorizer.isSiteAdmin(p) };
}

/** What a user is on a site now, for deciding which notifications reach them outside a request. */
export interface Standing {
  roles: readonly string[];
  admin: boolean;
}

/**
 * A user's standing on the site now, as their requests would carry it: none (null) for an account that is gone or
 * not active, or that is no member of the site; else the role chain, and whether the authorizer counts them an admin.
 */
export async function standingOf(
  deps: Pick<AppDeps, 'db' | 'store' | 'authorizer'>,
  siteId: string,
  userId: string,
): Promise<Standing | null> {
  const user = await findUserById(deps.db, userId);
  if (!user || user.status !== 'active') return null;
  const role = user.instanceAdmin ? 'admin' : own(user.roles, siteId);
  if (!role) return null;
  const actor: Actor = {
    type: 'user',
    id: userId,
    email: '',
    tokenVersion: 0,
    amr: [],
    instanceAdmin: user.instanceAdmin,
    roles: dictFrom([[siteId, role]]),
  };
  const roles = roleChain((await siteAccess(deps, siteId)).state, role).slice(0, MAX_ROLE_DEPTH);
  return { roles, admin: deps.authorizer.isSiteAdmin({ actor, site: { id: siteId } }) };
}

/** Whether a user with this standing receives a notification for the recipient (as the inbox shows it). */
export function receives(userId: string, standing: Standing | null, r: Recipient): boolean {
  if (!standing) return false;
  if (r.type === 'user') return r.id === userId;
  if (r.type === 'role') return standing.roles.includes(r.id);
  return standing.admin;
}
