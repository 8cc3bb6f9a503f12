#!/usr/bin/env node
// `npx svc …`: the operator command line (src/cli.ts), compiled like the server (`npm run svc -- …` is the same).
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { dist, ensureBuilt } from '../scripts/build.mjs';

await ensureBuilt();
await import(pathToFileURL(path.join(dist, 'cli.mjs')).href);
