import type { Feature } from '../../deps.ts';
import { typegenRoutes } from './http/typegen.routes.ts';

/** Type generation: the manifest endpoint; `generate` and the `svc typegen` command turn it into TypeScript. */
export const typegenFeature: Feature = { name: 'typegen', projectors: [], routes: typegenRoutes };
export { generate, type GenerateOptions } from './generate.ts';
export { runTypegenCli, TYPEGEN_USAGE, type CliIo } from './typegen.cli.ts';
export type { ManifestCollection, ManifestField, TypegenManifest } from './typegen.manifest.ts';
