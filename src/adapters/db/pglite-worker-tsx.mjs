// The embedded database's thread when the service runs from its TypeScript sources (tsx, vitest): a thread does not
// inherit the process's TypeScript loader on Node 20, so tsx's API loads the worker module (adapters/db/pglite-thread.ts).
import { workerData } from 'node:worker_threads';
import { tsImport } from 'tsx/esm/api';

await tsImport(workerData.svcPgliteModule, import.meta.url);
