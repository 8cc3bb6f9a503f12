import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../../deps.ts';
import { commandContext } from '../../../kernel/http/command-meta.ts';
import { checkCallerKey } from '../../../platform/http/caller-key.ts';
import { SYSTEM_SITE } from '../../../kernel/tenancy/site.ts';
import { findSite } from '../../../../projections/sites/index.ts';
import { findUserById } from '../../../../projections/users/index.ts';
import { startSession } from '../../auth/index.ts';
import { completeSetup, requireSetupPending } from '../setup.commands.ts';
import { dataEnvelope, errorEnvelope } from '../../../kernel/http/envelope.ts';
import { SetupCapabilities, SetupResult } from './setup.schemas.ts';

const CompleteBody = z.object({
  siteId: z.string().min(1).max(63).superRefine(checkCallerKey),
  siteName: z.string().min(1).max(200),
  email: z.string().email().max(320),
  password: z.string().min(1).max(1024),
  adminPath: z.string().max(64).optional(),
  setupToken: z.string().max(512).optional(),
});

export const setupRoutes: FastifyPluginAsync<AppDeps> = async (plain, deps) => {
  const app = plain.withTypeProvider<ZodTypeProvider>();
  const { db, config } = deps;

  app.get(
    '/setup/capabilities',
    {
      config: { caller: 'public', site: false },
      schema: {
        tags: ['setup'],
        summary: 'Report what setup can offer (before setup only)',
        response: { 200: dataEnvelope(SetupCapabilities), 404: errorEnvelope(404) },
      },
    },
    async () => {
      await requireSetupPending(deps);
      return { data: { setupComplete: false, encryption: { available: config.keyring.activeKeyId !== null } } };
    },
  );

  app.post(
    '/api/v1/setup/complete',
    {
      config: { caller: 'public', site: false, secretAnswer: true },
      schema: {
        body: CompleteBody,
        tags: ['setup'],
        summary: 'Complete setup: the first site and its administrator (before setup only)',
        // 404 once setup is done.
        response: { 201: dataEnvelope(SetupResult, 'Created'), 404: errorEnvelope(404) },
      },
    },
    async (req, reply) => {
      const { userId, siteId } = await completeSetup(deps, commandContext(req, deps.clock, SYSTEM_SITE), req.body);
      const user = (await findUserById(db, userId))!;
      const login = await startSession(deps, req, reply, user, ['pwd']);
      reply.status(201);
      return { data: { site: await findSite(db, siteId), ...login } };
    },
  );
};
