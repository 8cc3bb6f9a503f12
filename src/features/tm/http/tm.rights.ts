import type { FastifyRequest } from 'fastify';
import type { AppDeps } from '../../../deps.ts';
import { RESOURCES, type Action } from '../../../kernel/auth/authorizer.ts';

/** What every translation-memory route asks the one authorizer: an action on the resource `_tm`. */
export const tmRights =
  (deps: Pick<AppDeps, 'authorizer'>) =>
  (req: FastifyRequest, action: Action): Promise<unknown> =>
    deps.authorizer.require(req, RESOURCES.tm, action);
