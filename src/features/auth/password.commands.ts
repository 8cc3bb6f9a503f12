import type { AppDeps } from '../../deps.ts';
import { handleCommand } from '../../kernel/es/handle-command.ts';
import type { CommandContext } from '../../kernel/http/command-meta.ts';
import { DomainError } from '../../kernel/http/errors.ts';
import { seal } from '../../platform/privacy/pii.ts';
import { findUserByEmail, findUserById, type UserRow } from '../../../projections/users/index.ts';
import { mailNothingToSend, mailPasswordReset } from './account-mails.ts';
import { asUser } from './acting-user.ts';
import { UsedOrInvalidLink } from './auth.errors.ts';
import { checkPassword } from './password-policy.ts';
import { hashPassword } from './passwords.ts';
import { openSession, revokeAllSessions, type LoginData, type SessionClient } from './session.commands.ts';
import { userDecider } from './user.decider.ts';
import { requestPasswordReset } from './user.commands.ts';
import { userStream } from '../../contracts/auth/user.events.ts';

/** Sets a new password: `change` (the old one was proven) or `reset` (a link naming the password version). */
export async function setPassword(
  deps: Pick<AppDeps, 'db' | 'store' | 'config'>,
  ctx: CommandContext,
  input: { userId: string; password: string; how: { reason: 'change' } | { reason: 'reset'; passwordVersion: number } },
): Promise<void> {
  const { userId } = input;
  const passwordHash = await seal(deps.db, deps.config.keyring, userId, await hashPassword(input.password));
  await handleCommand(
    deps.store,
    userDecider,
    userStream(userId),
    { type: 'ChangePassword', data: { userId, passwordHash, ...input.how, now: ctx.now.toISOString() } },
    { metadata: ctx.metadata },
  );
}

/**
 * Spends an emailed password link (reset or invitation): the single-purpose token must be valid and name the
 * user's current password version, the new password must meet the policy; then the password is set (which also
 * verifies the address and bumps the token version) by the link's user. A used, expired or foreign link is 400
 * on `token`.
 */
export async function consumePasswordLink(
  deps: Pick<AppDeps, 'db' | 'store' | 'tokens' | 'config'>,
  ctx: CommandContext,
  input: { purpose: 'reset-password' | 'invite'; token: string; password: string },
): Promise<UserRow> {
  const claims = await deps.tokens.verifyPurpose(input.purpose, input.token);
  const user = claims ? await findUserById(deps.db, claims.sub) : null;
  if (!claims || !user || typeof claims.pv !== 'number' || claims.pv !== user.passwordVersion)
    throw new UsedOrInvalidLink();
  checkPassword(input.password, user.email ?? undefined);
  const how = { reason: 'reset' as const, passwordVersion: claims.pv };
  try {
    await setPassword(deps, asUser(ctx, user.userId), { userId: user.userId, password: input.password, how });
  } catch (err) {
    // The version moved between the check and the write: the link was just used.
    throw err instanceof DomainError && err.code === 'VALIDATION_FAILED' ? new UsedOrInvalidLink() : err;
  }
  return user;
}

/**
 * Changes the caller's password (the route proved the current one). Every session ends, the caller's too, so the
 * answer is a new session.
 */
export async function changePassword(
  deps: AppDeps,
  ctx: CommandContext,
  input: { user: UserRow; newPassword: string; client: SessionClient },
): Promise<LoginData> {
  const { userId } = input.user;
  checkPassword(input.newPassword, input.user.email ?? undefined, ['newPassword']);
  await setPassword(deps, ctx, { userId, password: input.newPassword, how: { reason: 'change' } });
  await revokeAllSessions(deps, ctx, { userId, reason: 'password', by: userId });
  const fresh = (await findUserById(deps.db, userId))!;
  return openSession(deps, ctx, { user: fresh, amr: ['pwd'], client: input.client });
}

/**
 * Mails a reset link to an address with an account (recording the request), and a note that there is none to one
 * without. The route runs it after its answer, so the record and the link never show in the answer's time.
 */
export async function forgotPassword(deps: AppDeps, ctx: CommandContext, input: { email: string }): Promise<void> {
  const user = await findUserByEmail(deps.db, input.email);
  if (!user) return mailNothingToSend(deps, input.email, 'reset');
  await requestPasswordReset(deps, ctx, { userId: user.userId });
  await mailPasswordReset(deps, user);
}

/** Sets a new password from a reset link; every session of the account ends. */
export async function resetPassword(
  deps: AppDeps,
  ctx: CommandContext,
  input: { token: string; password: string },
): Promise<void> {
  const user = await consumePasswordLink(deps, ctx, { purpose: 'reset-password', ...input });
  await revokeAllSessions(deps, asUser(ctx, user.userId), { userId: user.userId, reason: 'password', by: null });
}
