import type { FastifyPluginAsync } from 'fastify';
import type { AppDeps, Feature } from '../../deps.ts';
import { accessRoutes } from './http/access.routes.ts';
import { permissionsRoutes } from './http/permissions.routes.ts';

export { roleBase, roleIsKnown, siteAccess } from './site-access.ts';
export { SYSTEM_ROLES, type Action, type PermissionDef } from './access.types.ts';
export { checkWritable, permissionsOf, readGuard, requireScope } from './request-permissions.ts';
export { scopeOf, type PermissionSet, type Scope } from './effective.ts';
export { createAuthorizer } from './authorizer.ts';

const routes: FastifyPluginAsync<AppDeps> = async (app, deps) => {
  await app.register(accessRoutes, deps);
  await app.register(permissionsRoutes, deps);
};

export const accessFeature: Feature = { name: 'access', projectors: [], routes };
