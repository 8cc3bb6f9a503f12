import type { FastifyPluginAsync } from 'fastify';
import type { AppDeps, Feature } from '../../deps.ts';
import { mediaRoutes } from './http/media.routes.ts';
import { uploadsConfigRoutes } from './http/uploads-config.routes.ts';

export { MEDIA_EVENT_TYPES, type MediaEvent } from './media.events.ts';

const routes: FastifyPluginAsync<AppDeps> = async (app, deps) => {
  await app.register(mediaRoutes, deps);
  await app.register(uploadsConfigRoutes, deps);
};

/** Files and media: storage, the upload guard, raw media by key and the upload policy. */
export const filesFeature: Feature = { name: 'files', projectors: [], routes };
