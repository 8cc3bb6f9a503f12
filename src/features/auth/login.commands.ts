import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppDeps } from '../../deps.ts';
import type { UserRow } from '../../../projections/users/index.ts';
import { startSession, type LoginData } from './sessions.ts';
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
  req: FastifyRequest,
  reply: FastifyReply,
  user: UserRow,
  amr: string[],
): Promise<LoginData | MfaChallenge> {
  if ((await tfaState(deps, user.userId)).status === 'enrolled') {
    const challengeToken = await deps.tokens.issuePurpose('mfa-challenge', user.userId, {}, CHALLENGE_TTL_S);
    return { status: 'mfa_required', challengeToken, expiresIn: CHALLENGE_TTL_S };
  }
  return startSession(deps, req, reply, user, amr);
}
