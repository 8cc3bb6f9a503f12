import type { FastifyPluginAsync } from 'fastify';
import type { AppDeps, Feature } from '../../deps.ts';
import { gitIntegrationsProjector } from '../../../projections/git-integrations/index.ts';
import { gitRoutes } from './http/git.routes.ts';
import { gitWebhookRoutes } from './http/git-webhook.routes.ts';

const routes: FastifyPluginAsync<AppDeps> = async (app, deps) => {
  await app.register(gitRoutes, deps);
  await app.register(gitWebhookRoutes, deps);
};

/** Git integration: repositories connected to a site, and the verified webhook deliveries of their providers. */
export const gitFeature: Feature = { name: 'git', projectors: [gitIntegrationsProjector], routes };
