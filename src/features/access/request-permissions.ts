import type { AppDeps } from '../../deps.ts';
import { roleOn } from '../../kernel/auth/actor.ts';
import { actorOf, siteOf, type Principal } from '../../kernel/http/access.ts';
import { compileFilter, type Guard } from '../../../projections/item-documents/index.ts';
import { ActionDenied } from './access.errors.ts';
import type { Action } from '../../contracts/access/access.types.ts';

export { checkWritable } from '../../kernel/auth/authorizer.ts';
import { effectivePermissions, ruleVars, scopeOf, type PermissionSet, type Scope } from './effective.ts';
import { siteAccess } from './site-access.ts';

const perRequest = new WeakMap<Principal, Promise<PermissionSet>>();

/**
 * The caller's effective permissions on the request's site, worked out once per request from the site's access
 * model (cached per process, refreshed when its stream's version moves).
 */
export function permissionsOf(
  deps: Pick<AppDeps, 'store' | 'clock' | 'stepUp'>,
  req: Principal,
): Promise<PermissionSet> {
  let p = perRequest.get(req);
  if (!p) {
    p = compute(deps, req);
    perRequest.set(req, p);
  }
  return p;
}

async function compute(deps: Pick<AppDeps, 'store' | 'clock' | 'stepUp'>, req: Principal): Promise<PermissionSet> {
  const actor = actorOf(req);
  const siteId = siteOf(req);
  const roleId = roleOn(actor, siteId);
  const userId = actor.type === 'user' ? actor.id : null;
  const vars = ruleVars(actor.id, roleId, deps.clock.now());
  const state = (await siteAccess(deps, siteId)).state;
  const set = effectivePermissions(state, { roleId, userId }, vars);
  // Policy step-up: a session without the second factor does not get these permissions.
  if (set.requireMfa && actor.type === 'user' && !(actor.amr ?? []).includes('totp')) throw await deps.stepUp(actor.id);
  return set;
}

/** The scope of an action, or 403 naming the collection and action. */
export function requireScope(set: PermissionSet, collection: string, action: Action): Scope {
  const scope = scopeOf(set, collection, action);
  if (!scope) throw new ActionDenied({ action, collection });
  return scope;
}

/** The read guard for item queries: undefined when the caller may read everything. */
export function readGuard(set: PermissionSet): Guard | undefined {
  if (set.full) return undefined;
  const scopes = new Map<string, Scope | null>();
  const scope = (collection: string) => {
    if (!scopes.has(collection)) scopes.set(collection, scopeOf(set, collection, 'read'));
    return scopes.get(collection)!;
  };
  return {
    rows: (collection, at) => {
      const s = scope(collection);
      if (!s) return compileFilter({ id: { _null: true } }, { ...at, guard: undefined });
      return s.filter ? compileFilter(s.filter, { ...at, collection, guard: undefined }) : null;
    },
    visible: (collection, field) => {
      const s = scope(collection);
      return s !== null && (s.fields === null || s.fields.has(field));
    },
  };
}
