import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppDeps } from '../../deps.ts';
import type { UserRow } from '../../../projections/users/users.queries.ts';
import { startSession, type LoginData } from './sessions.ts';

/** The answer to a proven first factor: a session now (or, with TOTP enrolled, a challenge first). */
export async function completeLogin(
  deps: AppDeps,
  req: FastifyRequest,
  reply: FastifyReply,
  user: UserRow,
  amr: string[],
): Promise<LoginData> {
  return startSession(deps, req, reply, user, amr);
}
