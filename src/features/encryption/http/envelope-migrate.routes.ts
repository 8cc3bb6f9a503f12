import type { FastifyPluginAsync } from 'fastify';
import type { AppDeps } from '../../../deps.ts';
import { envelopeMigration } from '../../items/index.ts';

/**
 * POST /api/v1/admin/encryption/envelope/migrate: re-wraps a batch of the site's encrypted item values sealed under
 * a key other than the active one (see the items slice); the client polls until `done`.
 */
export const envelopeMigrateRoutes: FastifyPluginAsync<AppDeps> = async (app, deps) => {
  const migrate = envelopeMigration(deps);
  app.post(
    '/api/v1/admin/encryption/envelope/migrate',
    {
      config: { caller: 'site-admin' },
      schema: { tags: ['admin'], summary: 'Re-wrap encrypted item fields under the active key (poll until done)' },
    },
    async (req) => ({ data: await migrate(req) }),
  );
};
