import type { Feature } from '../../deps.ts';
import type { FastifyPluginAsync } from 'fastify';
import type { AppDeps } from '../../deps.ts';
import { auditRoutes } from './http/audit.routes.ts';
import { automatedDecisionsRoutes } from './http/automated-decisions.routes.ts';
import { auditPersonalData } from './personal-data.ts';

const routes: FastifyPluginAsync<AppDeps> = async (app, deps) => {
  await app.register(auditRoutes, deps);
  await app.register(automatedDecisionsRoutes, deps);
};

/**
 * The audit log (the site's events as the log holds them) and the caller's automated decisions; in a personal-data
 * export, the subject's events and the automated decisions about them.
 */
export const auditFeature: Feature = {
  name: 'audit',
  projectors: [],
  routes,
  personalData: (deps) => auditPersonalData(deps),
};
