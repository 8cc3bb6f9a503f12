import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../../deps.ts';
import { siteOf } from '../../../kernel/http/access.ts';
import { commandContext } from '../../../kernel/http/command-meta.ts';
import { dataEnvelope, errorEnvelope } from '../../../kernel/http/envelope.ts';
import { CollectionNotFound } from '../../schema/index.ts';
import { exportConfig, importConfig, SCOPES, type ImportInput } from '../config.commands.ts';
import { collectionBundle, onlyCollection, schemaOnly } from '../collection-bundle.ts';
import { MODES, NAME, Manifest } from '../manifest.ts';
import { ImportResult } from './config.schemas.ts';

const flag = z.enum(['true', 'false']).optional();
const ExportQuery = z
  .object({ scope: z.enum(SCOPES).default('all'), asOf: z.iso.datetime({ offset: true }).optional() })
  .strict();
const ImportQuery = z.object({ mode: z.enum(MODES).default('merge'), dryRun: flag, allowDestructive: flag }).strict();
const DiffQuery = z.object({ mode: z.enum(MODES).default('replace-managed') }).strict();
const ApplyQuery = z.object({ allowDestructive: flag }).strict();
const CollectionParams = z.object({ name: NAME });
/** Any JSON: the manifest is read by the import itself, so each problem answers 422 with its code and path. */
const ManifestBody = z.unknown().meta({ description: 'A configuration manifest (svc.config@v1)' });
/** Manifests of large schemas are larger than ordinary bodies. */
const BODY_LIMIT = 32 * 1024 * 1024;
const tags = ['config'];
/** Built as the routes register, once every slice has declared its codes. */
const failures = () => ({ 409: errorEnvelope(409), 422: errorEnvelope(422) });

/**
 * Configuration as code (spec "Schema administration", config rows): export a site's schema, webhooks and settings
 * as a manifest, plan a manifest against a site (dry run), and apply it in one atomic append. Per collection, the
 * same plan engine reads and applies one collection's schema.
 */
export const configRoutes: FastifyPluginAsync<AppDeps> = async (plain, deps) => {
  const app = plain.withTypeProvider<ZodTypeProvider>();
  const { clock } = deps;
  const run = (req: Parameters<typeof commandContext>[0], input: Omit<ImportInput, 'source'> & { source?: string }) =>
    importConfig(deps, commandContext(req, clock), { source: 'config.import', ...input });
  const answer = (r: Awaited<ReturnType<typeof importConfig>>, reply: { header(k: string, v: string): unknown }) => {
    reply.header('etag', `"${r.version}"`);
    const { version: _v, ...data } = r;
    return { data };
  };

  app.get(
    '/api/v1/config/export',
    {
      config: { caller: 'admin' },
      schema: {
        tags,
        summary: "Export the site's configuration as a manifest (asOf: as it was then)",
        querystring: ExportQuery,
        response: { 200: dataEnvelope(Manifest) },
      },
    },
    async (req) => {
      const { scope, asOf } = req.query;
      const manifest = await exportConfig(deps, siteOf(req), {
        scope,
        now: clock.now(),
        ...(asOf ? { asOf: new Date(asOf) } : {}),
      });
      return { data: manifest };
    },
  );

  app.post(
    '/api/v1/config/import',
    {
      config: { caller: 'admin', secretAnswer: true },
      bodyLimit: BODY_LIMIT,
      schema: {
        tags,
        summary: 'Plan a manifest against the site (dryRun=true), or apply it in one atomic append',
        querystring: ImportQuery,
        body: ManifestBody,
        response: { 200: dataEnvelope(ImportResult), ...failures() },
      },
    },
    async (req, reply) => {
      const q = req.query;
      const result = await run(req, {
        body: req.body,
        mode: q.mode,
        dryRun: q.dryRun === 'true',
        allowDestructive: q.allowDestructive === 'true',
      });
      return answer(result, reply);
    },
  );

  app.post(
    '/api/v1/collections/diff',
    {
      config: { caller: 'site-admin' },
      bodyLimit: BODY_LIMIT,
      schema: {
        tags,
        summary: 'Compare a schema bundle (a manifest) with the current schema: the plan, nothing written',
        querystring: DiffQuery,
        body: ManifestBody,
        response: { 200: dataEnvelope(ImportResult), ...failures() },
      },
    },
    async (req, reply) => {
      schemaOnly(req.body);
      const result = await run(req, {
        body: req.body,
        mode: req.query.mode,
        dryRun: true,
        allowDestructive: false,
        source: 'collections.diff',
      });
      return answer(result, reply);
    },
  );

  app.get(
    '/api/v1/collections/:name/schema',
    {
      schema: {
        tags,
        summary: 'Export one collection with its fields and relations (a manifest of that collection)',
        params: CollectionParams,
        response: { 200: dataEnvelope(Manifest) },
      },
    },
    async (req, reply) => {
      const bundle = await collectionBundle(deps, siteOf(req), req.params.name, clock.now());
      if (!bundle) throw new CollectionNotFound({ name: req.params.name });
      reply.header('etag', `"${bundle.version}"`);
      return { data: bundle.manifest };
    },
  );

  app.put(
    '/api/v1/collections/:name/schema',
    {
      config: { caller: 'site-admin' },
      bodyLimit: BODY_LIMIT,
      schema: {
        tags,
        summary:
          "Apply one collection's schema: creates, updates and deletes the collection, its fields and relations to match",
        params: CollectionParams,
        querystring: ApplyQuery,
        body: ManifestBody,
        response: { 200: dataEnvelope(ImportResult), ...failures() },
      },
    },
    async (req, reply) => {
      const { name } = req.params;
      onlyCollection(req.body, name);
      const result = await run(req, {
        body: req.body,
        mode: 'replace-managed',
        managedScopes: [name],
        dryRun: false,
        allowDestructive: req.query.allowDestructive === 'true',
        source: `collections.${name}.schema`,
      });
      return answer(result, reply);
    },
  );
};
