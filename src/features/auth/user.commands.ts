import type { AppDeps } from '../../deps.ts';
import { handleCommand } from '../../kernel/es/handle-command.ts';
import type { CommandContext } from '../../kernel/http/command-meta.ts';
import { seal } from '../../platform/privacy/pii.ts';
import { userDecider, type UserCommand } from './user.decider.ts';
import { userStream } from '../../contracts/auth/user.events.ts';

type Data<T extends UserCommand['type']> = Extract<UserCommand, { type: T }>['data'];
type Ctx = Pick<CommandContext, 'metadata' | 'expectedVersion'>;
/** What the commands below read of a context: they take `now` from it and never an If-Match version. */
type Now = Pick<CommandContext, 'metadata' | 'now'>;
type Input<T extends UserCommand['type']> = Omit<Data<T>, 'now'>;

/** Registers the instance's first administrator (setup); sign-up and invitations go through newIdentityCommands. */
export function registerUser(deps: Pick<AppDeps, 'store'>, ctx: Ctx, data: Data<'RegisterUser'>) {
  return handleCommand(deps.store, userDecider, userStream(data.userId), { type: 'RegisterUser', data }, ctx);
}

/** Gives a user a role on a site. */
export function grantSiteRole(deps: Pick<AppDeps, 'store'>, ctx: Ctx, data: Data<'GrantSiteRole'>) {
  return handleCommand(deps.store, userDecider, userStream(data.userId), { type: 'GrantSiteRole', data }, ctx);
}

// A user's stream has no version its clients see (If-Match names another record), so these never pin one.
function send<T extends UserCommand['type']>(deps: Pick<AppDeps, 'store'>, ctx: Now, type: T, input: Input<T>) {
  const command = { type, data: { ...input, now: ctx.now.toISOString() } } as UserCommand;
  return handleCommand(deps.store, userDecider, userStream(input.userId), command, { metadata: ctx.metadata });
}

/** Changes a member's role on a site, from the membership routes. */
export const changeSiteRole = (deps: Pick<AppDeps, 'store'>, ctx: Now, input: Input<'GrantSiteRole'>) =>
  send(deps, ctx, 'GrantSiteRole', input);

/** Ends a membership. */
export const revokeSiteRole = (deps: Pick<AppDeps, 'store'>, ctx: Now, input: Input<'RevokeSiteRole'>) =>
  send(deps, ctx, 'RevokeSiteRole', input);

/** Marks the address of an unverified user as verified. */
export const verifyEmail = (deps: Pick<AppDeps, 'store'>, ctx: Now, input: Input<'VerifyEmail'>) =>
  send(deps, ctx, 'VerifyEmail', input);

/** Records that a reset link was asked for. */
export const requestPasswordReset = (deps: Pick<AppDeps, 'store'>, ctx: Now, input: Input<'RequestPasswordReset'>) =>
  send(deps, ctx, 'RequestPasswordReset', input);

/** Records that someone signed up with the address of this account. */
export const recordSignUpAttempt = (deps: Pick<AppDeps, 'store'>, ctx: Now, input: Input<'RecordSignUpAttempt'>) =>
  send(deps, ctx, 'RecordSignUpAttempt', input);

/** Voids every token issued to the user so far. */
export const revokeTokens = (deps: Pick<AppDeps, 'store'>, ctx: Now, input: Input<'RevokeTokens'>) =>
  send(deps, ctx, 'RevokeTokens', input);

/** Merges a patch into the user's preferences (null removes a key). */
export const changePreferences = (deps: Pick<AppDeps, 'store'>, ctx: Now, input: Input<'ChangePreferences'>) =>
  send(deps, ctx, 'ChangePreferences', input);

/** Begins the membership the site's open invitation offers. */
export const acceptSiteInvitation = (deps: Pick<AppDeps, 'store'>, ctx: Now, input: Input<'AcceptSiteInvitation'>) =>
  send(deps, ctx, 'AcceptSiteInvitation', input);

/** Sets the user's names (null or empty clears one), sealed under the user's key. */
export async function renameUser(
  deps: Pick<AppDeps, 'db' | 'store' | 'config'>,
  ctx: Now,
  input: { userId: string; firstName: string | null; lastName: string | null },
) {
  const sealed = async (v: string | null) => (v ? seal(deps.db, deps.config.keyring, input.userId, v) : null);
  return send(deps, ctx, 'ChangeProfile', {
    userId: input.userId,
    firstName: await sealed(input.firstName),
    lastName: await sealed(input.lastName),
  });
}
