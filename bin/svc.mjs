#!/usr/bin/env node
// `npx svc …`: the operator command line (src/cli.ts), run through tsx like `npm run svc -- …`.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli.ts');
