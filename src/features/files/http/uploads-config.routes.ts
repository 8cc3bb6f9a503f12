import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../../deps.ts';
import { siteOf } from '../../../kernel/http/access.ts';
import { commandContext } from '../../../kernel/http/command-meta.ts';
import { dataEnvelope } from '../../../kernel/http/envelope.ts';
import { updateSite } from '../../sites/index.ts';
import { UPLOAD_CATALOGUE as CATALOGUE } from '../upload-guard/catalogue.ts';
import { uploadPolicyOf } from '../upload-config.ts';
import { UploadPolicyInput, type UploadPolicy } from '../upload-policy.ts';
import { UploadConfig } from './files.schemas.ts';

const shown = (p: UploadPolicy) => ({
  maxBytes: p.maxBytes,
  allowedMimeTypes: [...p.allowedMimeTypes],
  allowedExtensions: [...p.allowedExtensions],
  catalogue: CATALOGUE.map((t) => ({ mimeType: t.mimeType, extensions: [...t.extensions], kind: t.kind })),
});

/**
 * The upload policy of the site (spec "Files and media"): any member reads what is in effect; a site admin sets
 * the site's own (`upload_policy`), each key falling back to FILE_UPLOAD_* and then the defaults when absent.
 */
export const uploadsConfigRoutes: FastifyPluginAsync<AppDeps> = async (plain, deps) => {
  const app = plain.withTypeProvider<ZodTypeProvider>();

  app.get(
    '/api/v1/uploads/config',
    {
      schema: {
        tags: ['files'],
        summary: 'Read the upload policy in effect on the site',
        response: { 200: dataEnvelope(UploadConfig) },
      },
    },
    async (req) => ({ data: shown(await uploadPolicyOf(deps, siteOf(req))) }),
  );

  app.put(
    '/api/v1/uploads/config',
    {
      config: { caller: 'site-admin' },
      schema: {
        body: UploadPolicyInput,
        tags: ['files'],
        summary: "Set the site's upload policy (cap and allowlists)",
        response: { 200: dataEnvelope(UploadConfig) },
      },
    },
    async (req) => {
      const ctx = commandContext(req, deps.clock);
      await updateSite(deps, ctx, { settings: { upload_policy: { ...req.body } } });
      return { data: shown(await uploadPolicyOf(deps, ctx.siteId)) };
    },
  );
};
