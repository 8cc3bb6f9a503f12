import type { AppDeps } from '../../../deps.ts';
import { DomainError } from '../../../kernel/http/errors.ts';
import { CHALLENGE_TTL_S } from '../login-flow.ts';
import { tfaState } from './tfa.service.ts';

/**
 * A policy's step-up, for a session whose token lacks the second factor: without TOTP enrolled, 401
 * MFA_REQUIRED; with it, 401 carrying a fresh login challenge (`extensions.challengeToken`), answered at
 * POST /auth/verify-totp like a login's, whose new session then passes.
 */
export async function stepUpError(deps: Pick<AppDeps, 'store' | 'tokens'>, userId: string): Promise<DomainError> {
  if ((await tfaState(deps, userId)).status !== 'enrolled')
    return new DomainError(
      'MFA_REQUIRED',
      'a policy of yours needs two-factor authentication: enroll at /api/v1/me/tfa',
      {
        extensions: { reason: 'enroll_totp' },
      },
    );
  const challengeToken = await deps.tokens.issuePurpose('mfa-challenge', userId, {}, CHALLENGE_TTL_S);
  return new DomainError('UNAUTHENTICATED', 'a policy of yours needs your second factor: answer the challenge', {
    extensions: { status: 'mfa_required', challengeToken, expiresIn: CHALLENGE_TTL_S },
  });
}
