import type { AppDeps } from '../../deps.ts';
import { handleCommand } from '../../kernel/es/handle-command.ts';
import type { CommandContext } from '../../kernel/http/command-meta.ts';
import { userDecider, type UserCommand } from './user.decider.ts';
import { userStream } from './user.events.ts';

type Data<T extends UserCommand['type']> = Extract<UserCommand, { type: T }>['data'];
type Ctx = Pick<CommandContext, 'metadata' | 'expectedVersion'>;

/** Registers the instance's first administrator (setup); sign-up and invitations go through newIdentityCommands. */
export function registerUser(deps: Pick<AppDeps, 'store'>, ctx: Ctx, data: Data<'RegisterUser'>) {
  return handleCommand(deps.store, userDecider, userStream(data.userId), { type: 'RegisterUser', data }, ctx);
}

/** Gives a user a role on a site. */
export function grantSiteRole(deps: Pick<AppDeps, 'store'>, ctx: Ctx, data: Data<'GrantSiteRole'>) {
  return handleCommand(deps.store, userDecider, userStream(data.userId), { type: 'GrantSiteRole', data }, ctx);
}
