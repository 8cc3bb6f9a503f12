import type { FastifyPluginAsync } from 'fastify';
import type { AppDeps, Feature } from '../../deps.ts';
import { deliverAssetsRoutes } from './http/deliver-assets.routes.ts';
import { filesCreateRoutes } from './http/files-create.routes.ts';
import { filesRoutes } from './http/files.routes.ts';
import { foldersRoutes } from './http/folders.routes.ts';
import { mediaRoutes } from './http/media.routes.ts';
import { Transformer } from './transform/transformer.ts';
import { sweepUploads } from './upload-sweep.ts';
import { presetsRoutes } from './http/presets.routes.ts';
import { uploadsConfigRoutes } from './http/uploads-config.routes.ts';

const routes: FastifyPluginAsync<AppDeps> = async (app, deps) => {
  // One bound on transforms for the node: media and assets share its slots and its single flight.
  const transformer = new Transformer({
    storage: deps.storage,
    concurrency: deps.config.SVC_TRANSFORM_CONCURRENCY,
    queue: deps.config.SVC_TRANSFORM_QUEUE,
    maxPixels: deps.config.SVC_TRANSFORM_MAX_PIXELS,
    maxDerivatives: deps.config.SVC_TRANSFORM_MAX_DERIVATIVES,
  });
  await app.register(mediaRoutes, { ...deps, transformer });
  await app.register(filesRoutes, { ...deps, transformer });
  await app.register(filesCreateRoutes, deps);
  await app.register(deliverAssetsRoutes, { ...deps, transformer });
  await app.register(uploadsConfigRoutes, deps);
  await app.register(presetsRoutes, deps);
  await app.register(foldersRoutes, deps);
};

/** Files and media: storage, the upload guard, raw media by key with transforms, presets and the upload policy. */
export const filesFeature: Feature = {
  name: 'files',
  projectors: [],
  routes,
  loops: (deps) => [
    {
      name: 'upload-sweep',
      intervalMs: deps.config.SVC_UPLOAD_SWEEP_MS,
      run: async () => void (await sweepUploads(deps, deps.clock.now())),
    },
  ],
};
