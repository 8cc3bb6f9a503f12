import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../../deps.ts';
import { commandContext } from '../../../kernel/http/command-meta.ts';
import { dataEnvelope } from '../../../kernel/http/envelope.ts';
import { AdministratorsOnly } from '../../../kernel/http/kernel.errors.ts';
import type { Principal } from '../../../kernel/http/access.ts';
import { SYSTEM_SITE } from '../../../kernel/tenancy/site.ts';
import { caller } from '../../auth/index.ts';
import type { AdminPathCache } from '../admin-path.cache.ts';
import { changeAdminPath } from '../studio.commands.ts';
import { InstancePatch, InstanceRecord } from './studio.schemas.ts';

const admin = { config: { caller: 'admin' as const, site: false }, schema: { tags: ['admin'] } };

/** GET and PATCH /api/v1/admin/instance (instance administrators): where the studio is served, and moving it. */
export const instanceRoutes: FastifyPluginAsync<AppDeps & { paths: AdminPathCache }> = async (plain, deps) => {
  const app = plain.withTypeProvider<ZodTypeProvider>();
  const instanceAdmin = (p: Principal) => {
    if (!deps.authorizer.isInstanceAdministrator(p)) throw new AdministratorsOnly();
  };

  app.get(
    '/api/v1/admin/instance',
    {
      ...admin,
      schema: {
        ...admin.schema,
        summary: 'Read the instance settings (where the studio is served)',
        response: { 200: dataEnvelope(InstanceRecord) },
      },
    },
    async (req) => {
      instanceAdmin(req);
      return { data: { adminPath: await deps.paths.current() } };
    },
  );

  app.patch(
    '/api/v1/admin/instance',
    {
      ...admin,
      schema: {
        ...admin.schema,
        summary: 'Move the studio to another admin path (password step-up; the old path answers 404 at once)',
        body: InstancePatch,
        response: { 200: dataEnvelope(InstanceRecord) },
      },
    },
    async (req, reply) => {
      instanceAdmin(req);
      const user = await caller.currentUser(deps, req);
      await caller.passwordStepUp(deps, reply, user, req.body.password);
      const ctx = commandContext(req, deps.clock, SYSTEM_SITE);
      const { adminPath } = await changeAdminPath(deps, ctx, { to: req.body.adminPath });
      return { data: { adminPath } };
    },
  );
};
