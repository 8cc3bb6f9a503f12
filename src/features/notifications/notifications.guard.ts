import type { AppDeps } from '../../deps.ts';
import { roleOn } from '../../kernel/auth/actor.ts';
import { actorOf, siteOf, type Principal } from '../../kernel/http/access.ts';
import type { InboxViewer } from '../../../projections/notifications/index.ts';
import { roleChain, siteAccess } from '../access/index.ts';
import { InboxNeedsUser } from './notifications.errors.ts';

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
