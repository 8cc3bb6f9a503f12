import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../../deps.ts';
import { siteOf } from '../../../kernel/http/access.ts';
import { commandContext } from '../../../kernel/http/command-meta.ts';
import { dataEnvelope } from '../../../kernel/http/envelope.ts';
import { exportType } from '../export.ts';
import { SubjectAccessNotFound } from '../privacy.errors.ts';
import { exportSubjectAccess, findSubjectAccess, siteSubject } from '../sar.commands.ts';
import { ExportFile, SarBody, SarParams, SubjectAccessRecord } from './privacy.schemas.ts';

/**
 * Subject-access requests (GDPR art. 15) by a site's admins, for the site's members: the export is produced into
 * the site's storage and recorded, then fetched by id, only from the site that made it.
 */
export const sarRoutes: FastifyPluginAsync<AppDeps> = async (plain, deps) => {
  const app = plain.withTypeProvider<ZodTypeProvider>();
  app.post(
    '/api/v1/admin/sar',
    {
      config: { caller: 'admin' },
      schema: {
        tags: ['admin'],
        summary: "Export a site member's personal data (subject-access request)",
        body: SarBody,
        response: { 201: dataEnvelope(SubjectAccessRecord) },
      },
    },
    async (req, reply) => {
      const { format, ...ref } = req.body;
      const who = ref.userId !== undefined ? { userId: ref.userId } : { email: ref.email! };
      const subject = await siteSubject(deps, req, who);
      const record = await exportSubjectAccess(deps, commandContext(req, deps.clock), { subject, format });
      reply.status(201);
      return { data: record };
    },
  );

  app.get(
    '/api/v1/admin/sar/:id',
    {
      config: { caller: 'admin' },
      schema: {
        tags: ['admin'],
        summary: 'Download a subject-access export of the site',
        params: SarParams,
        response: { 200: ExportFile },
      },
    },
    async (req, reply) => {
      const { id } = req.params;
      const sar = await findSubjectAccess(deps, siteOf(req), id);
      const object = await deps.storage.get(sar.objectKey);
      if (!object) throw new SubjectAccessNotFound({ id });
      return reply
        .header('content-type', exportType(sar.format))
        .header('content-length', String(object.size))
        .header('content-disposition', `attachment; filename="subject-access-${id}.${sar.format}"`)
        .header('etag', `"${sar.sha256}"`)
        .header('cache-control', 'no-store')
        .header('x-content-type-options', 'nosniff')
        .send(object.body);
    },
  );
};
