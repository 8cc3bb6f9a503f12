import type { FastifyPluginAsync } from 'fastify';
import type { AppDeps, Feature } from '../../deps.ts';
import { gitProjectors } from '../../../projections/git-integrations/index.ts';
import { gitRoutes } from './http/git.routes.ts';
import { gitWebhookRoutes } from './http/git-webhook.routes.ts';
import { gitOAuthRoutes } from './http/git-oauth.routes.ts';
import { gitDeliveryProcessor, gitIncidentReporter } from './git.reactor.ts';
import { expirePreviews, gitPreviewer } from './git.previews.ts';

const routes: FastifyPluginAsync<AppDeps> = async (app, deps) => {
  await app.register(gitRoutes, deps);
  await app.register(gitWebhookRoutes, deps);
  await app.register(gitOAuthRoutes, deps);
};

/**
 * Git integration: repositories connected to a site, the verified webhook deliveries of their providers, and the
 * pull requests and CI runs processing finds in them (a failed run raises an incident), preview sites for pull
 * requests, and gitops sync of the repository's content intents.
 */
export const gitFeature: Feature = {
  name: 'git',
  projectors: gitProjectors,
  routes,
  reactors: (deps) => [gitDeliveryProcessor(deps), gitIncidentReporter(deps), gitPreviewer(deps)],
  loops: (deps) => [
    {
      name: 'git-preview-expiry',
      intervalMs: deps.config.SVC_GIT_PREVIEW_SWEEP_MS,
      run: async () => void (await expirePreviews(deps)),
    },
  ],
};
