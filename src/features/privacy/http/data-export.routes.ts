import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../../deps.ts';
import type { PersonalDataSubject } from '../../../platform/privacy/personal-data.ts';
import { findUserById } from '../../../../projections/users/index.ts';
import { exportType, exportStream, type ExportFormat, type ExportRun } from '../export.ts';
import { ExportNeedsUser, ExportWhileImpersonating } from '../privacy.errors.ts';
import { ExportFile, ExportFormatQuery } from './privacy.schemas.ts';

/** Sends a running export as an attachment; a part failing after the first bytes ends the response early. */
export function sendExport(reply: FastifyReply, run: ExportRun, format: ExportFormat, filename: string): FastifyReply {
  run.done.catch((err: unknown) => reply.log.error({ err }, 'personal-data export failed'));
  return reply
    .header('content-type', exportType(format))
    .header('content-disposition', `attachment; filename="${filename}.${format}"`)
    .header('cache-control', 'no-store')
    .header('x-content-type-options', 'nosniff')
    .send(run.body);
}

/** GET /api/v1/me/data-export: everything the service keeps about the caller, streamed (GDPR art. 15 and 20). */
export const dataExportRoutes: FastifyPluginAsync<AppDeps> = async (plain, deps) => {
  const app = plain.withTypeProvider<ZodTypeProvider>();
  app.get(
    '/api/v1/me/data-export',
    {
      config: { site: false },
      schema: {
        tags: ['me'],
        summary: "Download the caller's personal data (JSON, or a zip of one JSON file per part)",
        querystring: ExportFormatQuery,
        response: { 200: ExportFile },
      },
    },
    async (req, reply) => {
      const actor = req.actor!;
      if (actor.type !== 'user') throw new ExportNeedsUser();
      if (actor.impersonator) throw new ExportWhileImpersonating();
      const user = await findUserById(deps.db, actor.id);
      if (!user) throw new ExportNeedsUser();
      const subject: PersonalDataSubject = {
        userId: user.userId,
        siteIds: Object.keys(user.roles).sort(),
        everySite: true,
      };
      const now = deps.clock.now();
      const run = exportStream(deps.personalData(), subject, req.query.format, now);
      return sendExport(reply, run, req.query.format, `personal-data-${now.toISOString().slice(0, 10)}`);
    },
  );
};
