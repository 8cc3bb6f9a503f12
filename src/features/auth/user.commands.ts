import type { AppDeps } from '../../deps.ts';
import type { EventMetadata } from '../../kernel/es/event.ts';
import { handleCommand } from '../../kernel/es/handle-command.ts';
import { userDecider, type UserCommand } from './user.decider.ts';
import { userStream } from './user.events.ts';

type Data<T extends UserCommand['type']> = Extract<UserCommand, { type: T }>['data'];

/** Registers the instance's first administrator (setup); sign-up and invitations go through newIdentityCommands. */
export function registerUser(deps: Pick<AppDeps, 'store'>, data: Data<'RegisterUser'>, metadata: EventMetadata) {
  return handleCommand(deps.store, userDecider, userStream(data.userId), { type: 'RegisterUser', data }, { metadata });
}

/** Gives a user a role on a site. */
export function grantSiteRole(deps: Pick<AppDeps, 'store'>, data: Data<'GrantSiteRole'>, metadata: EventMetadata) {
  return handleCommand(deps.store, userDecider, userStream(data.userId), { type: 'GrantSiteRole', data }, { metadata });
}
