import type { AppDeps } from '../../deps.ts';
import type { CommandContext } from '../../kernel/http/command-meta.ts';
import { findUserByEmail, type UserRow } from '../../../projections/users/index.ts';
import { loginFailuresKey } from './auth-limits.ts';
import { EmailNotVerified, InvalidCredentials } from './auth.errors.ts';
import { verifyPassword } from './passwords.ts';
import { openSession, type LoginData, type SessionClient } from './session.commands.ts';
import { tfaState } from './tfa/tfa.service.ts';

export const CHALLENGE_TTL_S = 300;

/** The second step a TOTP-enrolled user owes: a single-use challenge that cannot act as a session. */
export interface MfaChallenge {
  status: 'mfa_required';
  challengeToken: string;
  expiresIn: number;
}

/** The answer to a proven first factor: a session, or, with TOTP enrolled, a challenge first. */
export async function completeLogin(
  deps: AppDeps,
  ctx: CommandContext,
  input: { user: UserRow; amr: string[]; client: SessionClient },
): Promise<LoginData | MfaChallenge> {
  if ((await tfaState(deps, input.user.userId)).status === 'enrolled') {
    const challengeToken = await deps.tokens.issuePurpose('mfa-challenge', input.user.userId, {}, CHALLENGE_TTL_S);
    return { status: 'mfa_required', challengeToken, expiresIn: CHALLENGE_TTL_S };
  }
  return openSession(deps, ctx, input);
}

/**
 * Logs in with email and password: one answer for an unknown address and a wrong password; a right password
 * clears the address's failure count, and an unverified address gets no session.
 */
export async function logIn(
  deps: AppDeps,
  ctx: CommandContext,
  input: { email: string; password: string; client: SessionClient },
): Promise<LoginData | MfaChallenge> {
  const user = await findUserByEmail(deps.db, input.email);
  const ok = await verifyPassword(user?.passwordHash ?? null, input.password);
  if (!user || !ok) throw new InvalidCredentials();
  await deps.limiter.reset(loginFailuresKey(deps.addresses, input.email));
  if (user.status !== 'active') throw new EmailNotVerified();
  return completeLogin(deps, ctx, { user, amr: ['pwd'], client: input.client });
}
