import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../../deps.ts';
import { requireMedia } from '../media.guard.ts';
import { siteOf } from '../../../kernel/http/access.ts';
import { commandContext } from '../../../kernel/http/command-meta.ts';
import { dataEnvelope, listEnvelope, NoContent } from '../../../kernel/http/envelope.ts';
import { createPreset, deletePreset, readPresets, updatePreset } from '../transform/preset.commands.ts';
import type { PresetRecord } from '../transform/preset.decider.ts';
import { PresetNotFound } from '../transform/transform.errors.ts';
import { formatDsl, PresetKey, TransformDsl } from '../transform/transform.params.ts';

/** The DSL as sent; checked like the query's parameters, stored in its canonical spelling. */
const Dsl = z
  .string()
  .max(200)
  .superRefine((v, ctx) => {
    const r = TransformDsl.safeParse(v);
    if (!r.success) for (const issue of r.error.issues) ctx.addIssue({ code: 'custom', message: issue.message });
  })
  .meta({
    description: 'w, h, fit, format, q and focal (x:y) as key=value pairs joined by commas',
    example: 'w=800,h=600,fit=cover,format=webp,q=80',
  });
const CreateBody = z.object({ key: PresetKey, name: z.string().min(1).max(200), dsl: Dsl }).strict();
const PatchBody = CreateBody.partial().strict();
const IdParams = z.object({ id: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'a preset id') });
const PresetView = z
  .object({
    id: z.string(),
    key: z.string(),
    name: z.string(),
    dsl: z.string(),
    createdAt: z.string(),
    createdBy: z.string(),
    updatedAt: z.string(),
    updatedBy: z.string(),
  })
  .meta({ id: 'TransformPreset' });

const canonicalDsl = (dsl: string) => formatDsl(TransformDsl.parse(dsl));
const view = (p: PresetRecord) => ({ ...p });
const tags = ['files'];

/** Transform presets of a site (`preset=<key>` on media and assets), under the media rights of the policy engine. */
export const presetsRoutes: FastifyPluginAsync<AppDeps> = async (plain, deps) => {
  const app = plain.withTypeProvider<ZodTypeProvider>();
  const { authorizer, clock } = deps;

  app.get(
    '/api/v1/transform-presets',
    {
      schema: {
        tags,
        summary: 'List the transform presets of the site',
        response: { 200: listEnvelope(PresetView, z.object({ total: z.number().int() })) },
      },
    },
    async (req) => {
      await requireMedia(authorizer, req, 'read');
      const presets = [...(await readPresets(deps, siteOf(req))).values()].sort((a, b) => (a.key < b.key ? -1 : 1));
      return { data: presets.map(view), meta: { total: presets.length } };
    },
  );

  app.post(
    '/api/v1/transform-presets',
    {
      schema: {
        tags,
        summary: 'Save a transform preset',
        body: CreateBody,
        response: { 201: dataEnvelope(PresetView, 'Created') },
      },
    },
    async (req, reply) => {
      await requireMedia(authorizer, req, 'create');
      const { key, name, dsl } = req.body;
      const preset = await createPreset(deps, commandContext(req, clock), { key, name, dsl: canonicalDsl(dsl) });
      reply.status(201);
      return { data: view(preset) };
    },
  );

  app.patch(
    '/api/v1/transform-presets/:id',
    {
      schema: {
        tags,
        summary: 'Change a transform preset',
        params: IdParams,
        body: PatchBody,
        response: { 200: dataEnvelope(PresetView) },
      },
    },
    async (req) => {
      await requireMedia(authorizer, req, 'update');
      const { dsl, ...rest } = req.body;
      const input = { id: req.params.id, ...rest, ...(dsl !== undefined ? { dsl: canonicalDsl(dsl) } : {}) };
      const preset = await updatePreset(deps, commandContext(req, clock), input);
      if (!preset) throw new PresetNotFound({ id: req.params.id });
      return { data: view(preset) };
    },
  );

  app.delete(
    '/api/v1/transform-presets/:id',
    { schema: { tags, summary: 'Delete a transform preset', params: IdParams, response: { 204: NoContent } } },
    async (req, reply) => {
      await requireMedia(authorizer, req, 'delete');
      await deletePreset(deps, commandContext(req, clock), req.params.id);
      return reply.status(204).send();
    },
  );
};
