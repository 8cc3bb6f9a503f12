import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../../deps.ts';
import { commandMeta } from '../../../kernel/http/command-meta.ts';
import { DomainError } from '../../../kernel/http/errors.ts';
import { SYSTEM_SITE } from '../../../kernel/tenancy/site.ts';
import { instanceState } from '../../../../projections/instance/index.ts';
import { findSite } from '../../../../projections/sites/index.ts';
import { findUserById } from '../../../../projections/users/index.ts';
import { startSession } from '../../auth/index.ts';
import { setupNotFound } from '../setup.decider.ts';
import { dataEnvelope } from '../../../kernel/http/envelope.ts';
import { runSetup } from '../run-setup.process.ts';

const CompleteBody = z.object({
  siteId: z.string().min(1).max(63),
  siteName: z.string().min(1).max(200),
  email: z.string().email().max(320),
  password: z.string().min(1).max(1024),
  adminPath: z.string().max(64).optional(),
  setupToken: z.string().max(512).optional(),
});

const sameSecret = (a: string, b: string) =>
  timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());

export const setupRoutes: FastifyPluginAsync<AppDeps> = async (plain, deps) => {
  const app = plain.withTypeProvider<ZodTypeProvider>();
  const { db, config, setupToken } = deps;

  app.get(
    '/setup/capabilities',
    {
      config: { caller: 'public', site: false },
      schema: {
        tags: ['setup'],
        summary: 'Report what setup can offer (before setup only)',
        response: {
          200: dataEnvelope(z.object({ setupComplete: z.boolean(), encryption: z.object({ available: z.boolean() }) })),
        },
      },
    },
    async () => {
      if ((await instanceState(db)).setupComplete) throw setupNotFound();
      return { data: { setupComplete: false, encryption: { available: config.keyring.activeKeyId !== null } } };
    },
  );

  app.post(
    '/api/v1/setup/complete',
    {
      config: { caller: 'public', site: false },
      schema: {
        body: CompleteBody,
        tags: ['setup'],
        summary: 'Complete setup: the first site and its administrator (before setup only)',
      },
    },
    async (req, reply) => {
      if ((await instanceState(db)).setupComplete) throw setupNotFound();
      if (config.SVC_REQUIRE_SETUP_TOKEN) {
        if (!setupToken) throw new DomainError('SETUP_TOKEN_NOT_ISSUED', 'no setup token was issued');
        if (!req.body.setupToken || !sameSecret(req.body.setupToken, setupToken)) {
          throw new DomainError('UNAUTHENTICATED', 'a valid setupToken is required', { path: ['setupToken'] });
        }
      }
      const { userId, siteId } = await runSetup(deps, req.body, commandMeta(req, SYSTEM_SITE, deps.clock.now()));
      const user = (await findUserById(db, userId))!;
      const login = await startSession(deps, req, reply, user, ['pwd']);
      reply.status(201);
      return { data: { site: await findSite(db, siteId), ...login } };
    },
  );
};
