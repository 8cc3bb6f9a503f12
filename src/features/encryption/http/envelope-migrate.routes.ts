import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../../deps.ts';
import { dataEnvelope } from '../../../kernel/http/envelope.ts';
import { envelopeMigration } from '../../items/index.ts';
import { EnvelopeMigrationResult } from './envelope-migrate.schemas.ts';

/**
 * POST /api/v1/admin/encryption/envelope/migrate: re-wraps a batch of the site's encrypted item values sealed under
 * a key other than the active one (see the items slice); the client polls until `done`.
 */
export const envelopeMigrateRoutes: FastifyPluginAsync<AppDeps> = async (plain, deps) => {
  const app = plain.withTypeProvider<ZodTypeProvider>();
  const migrate = envelopeMigration(deps);
  app.post(
    '/api/v1/admin/encryption/envelope/migrate',
    {
      config: { caller: 'site-admin' },
      schema: {
        tags: ['admin'],
        summary: 'Re-wrap encrypted item fields under the active key (poll until done)',
        // 503 ENCRYPTION_NOT_CONFIGURED without a key (documented for every route).
        response: { 200: dataEnvelope(EnvelopeMigrationResult) },
      },
    },
    async (req) => ({ data: await migrate(req) }),
  );
};
