import type { AppDeps } from '../../../deps.ts';
import type { DomainError } from '../../../kernel/http/errors.ts';
import { CHALLENGE_TTL_S } from '../login.commands.ts';
import { tfaState } from './tfa.service.ts';
import { MfaEnrollmentRequired, SecondFactorRequired } from './tfa.errors.ts';

/**
 * A policy's step-up, for a session whose token lacks the second factor: without TOTP enrolled, 401
 * MFA_REQUIRED; with it, 401 carrying a fresh login challenge (`extensions.challengeToken`), answered at
 * POST /auth/verify-totp like a login's, whose new session then passes.
 */
export async function stepUpError(deps: Pick<AppDeps, 'store' | 'tokens'>, userId: string): Promise<DomainError> {
  if ((await tfaState(deps, userId)).status !== 'enrolled') return new MfaEnrollmentRequired();
  const challengeToken = await deps.tokens.issuePurpose('mfa-challenge', userId, {}, CHALLENGE_TTL_S);
  return new SecondFactorRequired({ challengeToken, expiresIn: CHALLENGE_TTL_S });
}
