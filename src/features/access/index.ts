import type { FastifyPluginAsync } from 'fastify';
import type { AppDeps, Feature } from '../../deps.ts';
import { permissionsRoutes } from './http/permissions.routes.ts';
import { policiesRoutes } from './http/policies.routes.ts';
import { rolesRoutes } from './http/roles.routes.ts';
import { subscriberAccessRoutes } from './http/subscriber-access.routes.ts';
import { teamsRoutes } from './http/teams.routes.ts';

export { roleBase, roleIsKnown, siteAccess } from './site-access.ts';
export { roleChain } from './access.decider.ts';
export type { Scope } from './effective.ts';
export { createAuthorizer } from './authorizer.ts';

const routes: FastifyPluginAsync<AppDeps> = async (app, deps) => {
  for (const r of [rolesRoutes, policiesRoutes, teamsRoutes, permissionsRoutes, subscriberAccessRoutes])
    await app.register(r, deps);
};

export const accessFeature: Feature = { name: 'access', projectors: [], routes };
