import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../../deps.ts';
import { roleOn } from '../../../kernel/auth/actor.ts';
import { actorOf, siteOf } from '../../../kernel/http/access.ts';
import { AdministratorsOnly } from '../../../kernel/http/kernel.errors.ts';
import { commandContext } from '../../../kernel/http/command-meta.ts';
import { checkCallerKey } from '../../../platform/http/caller-key.ts';
import { previewBaseOf, SITE_ID_PATTERN, readAsSite } from '../../../kernel/tenancy/site.ts';
import { findSite, listSites } from '../../../../projections/sites/index.ts';
import { siteActivity } from '../../../../projections/site-activity/index.ts';
import { SiteNotFound } from '../site.errors.ts';
import { dataEnvelope, listEnvelope } from '../../../kernel/http/envelope.ts';
import { ActiveSite, SettingsBody, SiteRecord } from './sites.schemas.ts';
import { createSite, updateSite } from '../site.commands.ts';

const CreateSiteBody = z.object({
  id: z
    .string()
    .regex(SITE_ID_PATTERN, 'site ids are 2–63 characters: a-z, 0-9 and -, not starting with -')
    .refine((id) => previewBaseOf(id) === null, 'ids of the form <site>--pr-<number> are kept for preview sites')
    .superRefine(checkCallerKey),
  name: z.string().min(1).max(200),
});
const PatchSiteBody = z
  .object({ name: z.string().min(1).max(200).optional(), settings: SettingsBody.optional() })
  .strict();

export const sitesRoutes: FastifyPluginAsync<AppDeps> = async (plain, { db, store, clock }) => {
  const app = plain.withTypeProvider<ZodTypeProvider>();

  app.post(
    '/api/v1/sites',
    {
      config: { caller: 'admin', site: false },
      schema: {
        body: CreateSiteBody,
        tags: ['sites'],
        summary: 'Create a site',
        response: { 201: dataEnvelope(SiteRecord.nullable(), 'Created') },
      },
    },
    async (req, reply) => {
      const { id, name } = req.body;
      const ctx = commandContext(req, clock, id);
      await createSite({ store }, ctx, { siteId: id, name, createdBy: ctx.actor.id, now: ctx.now.toISOString() });
      reply.status(201);
      return { data: await findSite(db, id) };
    },
  );

  app.get(
    '/api/v1/sites',
    {
      config: { site: false },
      schema: {
        tags: ['sites'],
        summary: "List the caller's sites (every site for instance admins)",
        response: { 200: listEnvelope(SiteRecord, z.object({ total: z.number().int() })) },
      },
    },
    async (req) => {
      const actor = actorOf(req);
      const sites = await listSites(db, actor.instanceAdmin ? null : Object.keys(actor.roles));
      return { data: sites, meta: { total: sites.length } };
    },
  );

  app.get(
    '/api/v1/site',
    { schema: { tags: ['sites'], summary: 'Read the active site', response: { 200: dataEnvelope(ActiveSite) } } },
    async (req) => {
      const siteId = siteOf(req);
      return readAsSite(db, siteId, async (trx) => {
        const site = await findSite(trx, siteId);
        if (!site) throw new SiteNotFound({ siteId });
        return { data: { ...site, activity: await siteActivity(trx, siteId) } };
      });
    },
  );

  app.patch(
    '/api/v1/site',
    {
      config: { caller: 'site-admin' },
      schema: {
        body: PatchSiteBody,
        tags: ['sites'],
        summary: 'Update the active site (name, settings)',
        response: { 200: dataEnvelope(SiteRecord.nullable()) },
      },
    },
    async (req) => {
      // Retention is an admin-only area (the spec's rule 2): its horizons too, not only its runs.
      if (req.body.settings?.retention !== undefined && roleOn(actorOf(req), siteOf(req)) !== 'admin')
        throw new AdministratorsOnly();
      const ctx = commandContext(req, clock);
      await updateSite({ store }, ctx, req.body);
      return { data: await readAsSite(db, ctx.siteId, (trx) => findSite(trx, ctx.siteId)) };
    },
  );
};
