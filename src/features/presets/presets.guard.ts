import type { AppDeps } from '../../deps.ts';
import { roleOn } from '../../kernel/auth/actor.ts';
import { actorOf, siteOf, type Principal } from '../../kernel/http/access.ts';
import { readAsSite } from '../../kernel/tenancy/site.ts';
import { findPreset, type PresetRecord, type PresetViewer } from '../../../projections/presets/index.ts';
import { roleChain, siteAccess } from '../access/index.ts';
import { PresetNotFound, PresetScopeForbidden } from './presets.errors.ts';
import { scopeOf, type PresetDefinition } from '../../contracts/presets/presets.events.ts';

/** Roles of a parent chain whose presets a caller inherits (the chain cannot loop; this bounds a long one). */
export const MAX_ROLE_DEPTH = 10;

type Deps = Pick<AppDeps, 'db' | 'store' | 'authorizer'>;
type Owner = Pick<PresetDefinition, 'userId' | 'roleId'>;

/** The caller's own user id: a user's (an API key has no presets of its own). */
export const selfOf = (p: Principal): string | null => {
  const actor = actorOf(p);
  return actor.type === 'user' ? actor.id : null;
};

/** Whose presets the caller sees: their own, their role and its parents (nearest first), the global ones. */
export async function viewerOf(deps: Deps, p: Principal): Promise<PresetViewer> {
  const siteId = siteOf(p);
  const role = roleOn(actorOf(p), siteId);
  const roles = role ? roleChain((await siteAccess(deps, siteId)).state, role).slice(0, MAX_ROLE_DEPTH) : [];
  return { userId: selfOf(p), roles };
}

const sees = (v: PresetViewer, r: PresetRecord) =>
  r.userId !== null ? r.userId === v.userId : r.roleId === null || v.roles.includes(r.roleId);

/**
 * The preset the caller may address: any of the site's for a site admin, else one they see (their own, their role
 * chain's, a global one). Another site's preset, and a preset the caller does not see, answer 404 alike.
 */
export async function addressable(deps: Deps, p: Principal, presetId: string): Promise<PresetRecord> {
  const siteId = siteOf(p);
  const record = await readAsSite(deps.db, siteId, (trx) => findPreset(trx, siteId, presetId));
  if (!record || (!deps.authorizer.isSiteAdmin(p) && !sees(await viewerOf(deps, p), record)))
    throw new PresetNotFound({ presetId });
  return record;
}

/** Users manage their own presets; role and global ones, and other users', are the site admins'. */
export function requireManage(deps: Deps, p: Principal, owner: Owner): void {
  if (owner.userId !== null && owner.userId === selfOf(p)) return;
  if (!deps.authorizer.isSiteAdmin(p)) throw new PresetScopeForbidden({ scope: scopeOf(owner) });
}
