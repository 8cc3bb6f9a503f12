import type { FastifyPluginAsync } from 'fastify';
import type { AppDeps, Feature } from '../../deps.ts';
import { mediaRoutes } from './http/media.routes.ts';
import { presetsRoutes } from './http/presets.routes.ts';
import { uploadsConfigRoutes } from './http/uploads-config.routes.ts';

export { MEDIA_EVENT_TYPES, type MediaEvent } from './media.events.ts';

const routes: FastifyPluginAsync<AppDeps> = async (app, deps) => {
  await app.register(mediaRoutes, deps);
  await app.register(uploadsConfigRoutes, deps);
  await app.register(presetsRoutes, deps);
};

/** Files and media: storage, the upload guard, raw media by key with transforms, presets and the upload policy. */
export const filesFeature: Feature = { name: 'files', projectors: [], routes };
