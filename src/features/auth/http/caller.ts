import type { FastifyReply } from 'fastify';
import type { AppDeps } from '../../../deps.ts';
import type { Principal } from '../../../kernel/http/access.ts';
import { enforceRate } from '../../../platform/rate-limit/enforce.ts';
import { findUserById, type UserRow } from '../../../../projections/users/index.ts';
import { authRules } from '../auth-limits.ts';
import { AccountWhileImpersonating, NoAccount, UserGone, WrongPassword } from '../auth.errors.ts';
import { verifyPassword } from '../passwords.ts';

/** The user behind a bearer: API keys and other principals have no account to manage. */
export async function currentUser(deps: Pick<AppDeps, 'db'>, p: Principal): Promise<UserRow> {
  const actor = p.actor;
  if (actor?.type !== 'user') throw new NoAccount();
  if (actor.impersonator) throw new AccountWhileImpersonating();
  const user = await findUserById(deps.db, actor.id);
  if (!user) throw new UserGone();
  return user;
}

/**
 * Verifies the caller's password for a sensitive step (change-password, TOTP setup and removal), counted like
 * login failures so it cannot serve as an unlimited guessing oracle.
 */
export async function passwordStepUp(
  deps: Pick<AppDeps, 'limiter' | 'config'>,
  reply: FastifyReply,
  user: UserRow,
  password: string,
  path = ['password'],
): Promise<void> {
  const key = `auth:stepup:${user.userId}`;
  await enforceRate(deps.limiter, reply, [{ key, rule: authRules(deps.config).loginFailures }]);
  if (!(await verifyPassword(user.passwordHash, password))) throw new WrongPassword({ path });
  await deps.limiter.reset(key);
}
