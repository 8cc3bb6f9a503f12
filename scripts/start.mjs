// `npm start`: builds dist/ if the sources changed since the last build (scripts/build.mjs), then runs the compiled
// server. Workers of SVC_WORKERS run this file again (node:cluster) and only import the build their primary checked.
import cluster from 'node:cluster';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { dist, ensureBuilt } from './build.mjs';

if (cluster.isPrimary) await ensureBuilt();
await import(pathToFileURL(path.join(dist, 'main.mjs')).href);
