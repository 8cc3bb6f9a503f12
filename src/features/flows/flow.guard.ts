import type { AppDeps } from '../../deps.ts';
import { roleOn } from '../../kernel/auth/actor.ts';
import { SYSTEM_ROLES } from '../../kernel/auth/authorizer.ts';
import { actorOf, siteOf, type Principal } from '../../kernel/http/access.ts';
import { roleBase } from '../access/index.ts';
import { RunAsAboveCaller, UnknownRunAsRole } from './flow.errors.ts';

const rank = (role: string) => (SYSTEM_ROLES as readonly string[]).indexOf(role);

/**
 * Whether a role (by the system role it stands on) ranks above another: a flow may run as its manager's role or a
 * weaker one, never a stronger one. An unknown base ranks above everything (refused).
 */
export const ranksAbove = (roleBaseOf: string, callerBase: string): boolean =>
  rank(roleBaseOf) < 0 || rank(callerBase) < 0 || rank(roleBaseOf) < rank(callerBase);

/**
 * Who may manage flows, asked of the authorizer: the site's administrators (a flow acts with its runAs role's
 * rights, sends mail and calls out, like the site's own settings). A flow's runAs role never ranks above the
 * caller's, checked against both the role it has and the one it is given.
 */
export function flowGuard(deps: Pick<AppDeps, 'authorizer' | 'store'>) {
  const callerRole = (req: Principal) => roleOn(actorOf(req), siteOf(req)) ?? 'public';
  return {
    manage(req: Principal): void {
      deps.authorizer.requireSiteAdmin(req);
    },
    /** The caller's role, the default runAs of a new flow. */
    callerRole,
    /** 400 when `runAs` is no role of the site, 403 when it ranks above the caller's role. */
    async runAs(req: Principal, runAs: string): Promise<void> {
      const siteId = siteOf(req);
      const base = await roleBase(deps, siteId, runAs);
      if (base === null) throw new UnknownRunAsRole({ role: runAs });
      const mine = callerRole(req);
      const callerBase = (await roleBase(deps, siteId, mine)) ?? mine;
      if (ranksAbove(base, callerBase)) throw new RunAsAboveCaller({ callerRole: mine, runAs });
    },
    /** 403 when a saved flow runs as a role above the caller's (a role since deleted no longer ranks). */
    async mayChange(req: Principal, runAs: string): Promise<void> {
      const siteId = siteOf(req);
      const base = await roleBase(deps, siteId, runAs);
      if (base === null) return;
      const mine = callerRole(req);
      if (ranksAbove(base, (await roleBase(deps, siteId, mine)) ?? mine))
        throw new RunAsAboveCaller({ callerRole: mine, runAs });
    },
  };
}
export type FlowGuard = ReturnType<typeof flowGuard>;
