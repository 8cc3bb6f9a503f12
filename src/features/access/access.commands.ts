import type { AppDeps } from '../../deps.ts';
import { handleCommand } from '../../kernel/es/handle-command.ts';
import type { CommandContext } from '../../kernel/http/command-meta.ts';
import { newId } from '../../kernel/ids.ts';
import { own } from '../../kernel/safe/keys.ts';
import { readAsSite } from '../../kernel/tenancy/site.ts';
import { countRoleHolders, findUserById } from '../../../projections/users/index.ts';
import { accessDecider, type AccessCommand, type AccessState } from './access.decider.ts';
import { AdminParentForbidden, NotASiteMember, RoleHeld, TeamNotFound } from './access.errors.ts';
import { accessStream } from '../../contracts/access/access.events.ts';
import type { RoleDef } from '../../contracts/access/access.types.ts';
import { siteAccess } from './site-access.ts';

/** What an access command needs from its sender: the site, one reading of the clock, the event metadata. */
export type AccessCtx = Pick<CommandContext, 'siteId' | 'now' | 'metadata'>;
type Data<T extends AccessCommand['type']> = Omit<Extract<AccessCommand, { type: T }>['data'], 'now'>;

/** Sends one command to the site's access model; the model as it is afterwards. */
export async function changeAccess<T extends AccessCommand['type']>(
  deps: Pick<AppDeps, 'store'>,
  ctx: AccessCtx,
  type: T,
  data: Data<T>,
): Promise<AccessState> {
  const command = { type, data: { ...data, now: ctx.now.toISOString() } } as unknown as AccessCommand;
  const res = await handleCommand(deps.store, accessDecider, accessStream(ctx.siteId), command, {
    metadata: ctx.metadata,
  });
  return res.state;
}

/** A user named by an attachment or a team must be a member of the site (400 at `path` otherwise). */
export async function requireMember(deps: Pick<AppDeps, 'db'>, siteId: string, userId: string, path: string[]) {
  const user = await findUserById(deps.db, userId);
  if (!(user ? own(user.roles, siteId) : undefined)) throw new NotASiteMember({ userId, path });
}

/** Only an instance admin may make a role that inherits admin's powers. */
function mayInheritFrom(parentId: string | null | undefined, byInstanceAdmin: boolean): void {
  if (parentId === 'admin' && !byInstanceAdmin) throw new AdminParentForbidden();
}

type RoleInput = Partial<Omit<RoleDef, 'id'>> & { byInstanceAdmin: boolean };

/** Creates a custom role of the site; its new id with the model. */
export async function createRole(deps: Pick<AppDeps, 'store'>, ctx: AccessCtx, input: RoleInput & { name: string }) {
  mayInheritFrom(input.parentId, input.byInstanceAdmin);
  const id = newId();
  const role = { id, name: input.name, description: input.description ?? null, parentId: input.parentId ?? null };
  return { id, state: await changeAccess(deps, ctx, 'CreateRole', role) };
}

/** Renames a custom role, or changes its description or parent. */
export function updateRole(deps: Pick<AppDeps, 'store'>, ctx: AccessCtx, input: RoleInput & { id: string }) {
  const { id, byInstanceAdmin, ...changes } = input;
  mayInheritFrom(changes.parentId, byInstanceAdmin);
  return changeAccess(deps, ctx, 'UpdateRole', { id, changes });
}

/** Deletes a custom role no user holds (its policy attachments go with it). */
export async function deleteRole(deps: Pick<AppDeps, 'store' | 'db'>, ctx: AccessCtx, input: { id: string }) {
  const { siteId } = ctx;
  const holders = await readAsSite(deps.db, siteId, (trx) => countRoleHolders(trx, siteId, input.id));
  if (holders > 0) throw new RoleHeld({ roleId: input.id, holders });
  return changeAccess(deps, ctx, 'DeleteRole', { id: input.id });
}

/** Creates a team with its first members; its new id with the model. */
export async function createTeam(
  deps: Pick<AppDeps, 'store' | 'db'>,
  ctx: AccessCtx,
  input: { name: string; members: string[] },
) {
  for (const [i, m] of input.members.entries()) await requireMember(deps, ctx.siteId, m, ['members', String(i)]);
  const id = newId();
  let state = await changeAccess(deps, ctx, 'CreateTeam', { id, name: input.name });
  for (const m of input.members) state = await changeAccess(deps, ctx, 'AddTeamMember', { teamId: id, userId: m });
  return { id, state };
}

/** Renames a team and adds or removes members. */
export async function updateTeam(
  deps: Pick<AppDeps, 'store' | 'db'>,
  ctx: AccessCtx,
  input: { id: string; name?: string; addMembers: string[]; removeMembers: string[] },
) {
  const { id } = input;
  for (const [i, m] of input.addMembers.entries()) await requireMember(deps, ctx.siteId, m, ['addMembers', String(i)]);
  let state = (await siteAccess(deps, ctx.siteId)).state;
  if (!state.teams.has(id)) throw new TeamNotFound({ teamId: id });
  if (input.name !== undefined) state = await changeAccess(deps, ctx, 'UpdateTeam', { id, name: input.name });
  for (const m of input.addMembers) state = await changeAccess(deps, ctx, 'AddTeamMember', { teamId: id, userId: m });
  for (const m of input.removeMembers)
    state = await changeAccess(deps, ctx, 'RemoveTeamMember', { teamId: id, userId: m });
  return state;
}
