import type { AppDeps } from '../../deps.ts';
import { aggregateStream } from '../../kernel/es/aggregate-stream.ts';
import { accessDecider, roleChain, roleExists, type AccessState } from './access.decider.ts';
import { accessStream, type AccessEvent } from '../../contracts/access/access.events.ts';

/** Per store: each site's access model with the version of its stream it was folded at. */
const caches = new WeakMap<object, Map<string, { version: number; state: AccessState }>>();

/**
 * A site's roles, policies, rules, attachments and teams, folded from its access stream. One cheap read of the
 * stream's version decides whether the cached fold is current, so a change on any node is seen by the next
 * request everywhere; only a changed model is read again (from the cached version onwards).
 */
export async function siteAccess(
  deps: Pick<AppDeps, 'store'>,
  siteId: string,
): Promise<{ version: number; state: AccessState }> {
  let cache = caches.get(deps.store);
  if (!cache) caches.set(deps.store, (cache = new Map()));
  const stream = accessStream(siteId);
  const version = (await deps.store.streamVersion(stream)) ?? 0;
  const hit = cache.get(siteId);
  if (hit && hit.version === version) return hit;
  return aggregateStream<AccessState, AccessEvent>(
    deps.store,
    stream,
    accessDecider.evolve,
    () => accessDecider.initialState(),
    { cache: { get: () => hit, set: (_, v, state) => cache.set(siteId, { version: v, state }) } },
  );
}

/**
 * The system role a role stands on: itself for a system role, the system role at the top of a custom role's
 * parent chain, or `viewer` for a custom role with no system ancestor (it has only its own policies). Null for a
 * role that does not exist. Used to rank roles (a key or a grant never above its creator).
 */
export async function roleBase(deps: Pick<AppDeps, 'store'>, siteId: string, roleId: string): Promise<string | null> {
  const { state } = await siteAccess(deps, siteId);
  if (!roleExists(state, roleId)) return null;
  const top = roleChain(state, roleId).at(-1)!;
  return roleExists({ ...state, roles: new Map() }, top) ? top : 'viewer';
}

/** Whether a role id (a system role key or a custom role's id) exists on the site. */
export async function roleIsKnown(deps: Pick<AppDeps, 'store'>, siteId: string, roleId: string): Promise<boolean> {
  return roleExists((await siteAccess(deps, siteId)).state, roleId);
}
