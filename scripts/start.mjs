// `npm start`: builds dist/ if the sources changed since the last build (scripts/build.mjs), and studio/dist/ if the
// studio's sources did (scripts/build-studio.mjs), then runs the compiled server.
// Workers of SVC_WORKERS run this file again (node:cluster) and only import the builds their primary checked.
import cluster from 'node:cluster';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { dist, ensureBuilt } from './build.mjs';
import { ensureStudioBuilt } from './build-studio.mjs';

if (cluster.isPrimary) {
  await ensureBuilt();
  await ensureStudioBuilt();
}
await import(pathToFileURL(path.join(dist, 'main.mjs')).href);
