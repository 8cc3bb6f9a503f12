import type { AppDeps } from '../../deps.ts';
import {
  administers,
  type AccessScope,
  type Action,
  type Authorizer,
  type Rights,
} from '../../kernel/auth/authorizer.ts';
import { roleOn } from '../../kernel/auth/actor.ts';
import { actorOf, siteOf, type Principal } from '../../kernel/http/access.ts';
import { AdministratorsOnly } from '../../kernel/http/kernel.errors.ts';
import { SiteAdminRequired } from './access.errors.ts';
import { scopeOf } from './effective.ts';
import { permissionsOf, requireScope } from './request-permissions.ts';

const perSet = new WeakMap<object, Rights>();

/** The policy engine behind the kernel's Authorizer: the site's access model, folded once per principal. */
export function createAuthorizer(deps: Pick<AppDeps, 'store' | 'clock' | 'stepUp'>): Authorizer {
  const rights = async (p: Principal): Promise<Rights> => {
    const set = await permissionsOf(deps, p);
    let r = perSet.get(set);
    if (!r) {
      const memo = new Map<string, AccessScope | null>();
      r = {
        full: set.full,
        public: !set.full && set.roleChain.includes('public'),
        scope: (resource: string, action: Action) => {
          const key = `${action} ${resource}`;
          if (!memo.has(key)) memo.set(key, scopeOf(set, resource, action));
          return memo.get(key)!;
        },
        any: (action: Action) => set.full || set.rules.some((rule) => rule.action === action),
      };
      perSet.set(set, r);
    }
    return r;
  };
  const isSiteAdmin = (p: Principal) => administers(actorOf(p), siteOf(p));
  const isAdministrator = (p: Principal) => roleOn(actorOf(p), siteOf(p)) === 'admin';
  return {
    rights,
    require: async (p, resource, action) => requireScope(await permissionsOf(deps, p), resource, action),
    may: async (p, resource, action) => (await rights(p)).scope(resource, action) !== null,
    isSiteAdmin,
    requireSiteAdmin: (p) => {
      if (!isSiteAdmin(p)) throw new SiteAdminRequired();
    },
    requireAdministrator: (p) => {
      if (!isAdministrator(p)) throw new AdministratorsOnly();
    },
    isAdministrator,
    isInstanceAdministrator: (p) => p.actor?.instanceAdmin === true,
  };
}
