import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../../deps.ts';
import { errorEnvelope, NoContent } from '../../../kernel/http/envelope.ts';
import { enforceRate } from '../../../platform/rate-limit/enforce.ts';
import { readAsSite, SITE_ID_PATTERN } from '../../../kernel/tenancy/site.ts';
import { referencedByPublished } from '../../../../projections/item-documents/index.ts';
import { FILES_COLLECTION } from '../../../contracts/schema/system-collections.types.ts';
import { fileDerivatives, fileSource } from '../file.commands.ts';
import { FileNotDelivered } from '../file.errors.ts';
import { resolveTransform } from '../transform/transform.resolve.ts';
import { adHoc, asksTransform, derivativeName, TransformQuery } from '../transform/transform.params.ts';
import type { Transformer } from '../transform/transformer.ts';
import { Binary } from './files.schemas.ts';
import { sendDerivative, sendObject } from './send-object.ts';
import { pathId } from '../../../kernel/http/path-params.ts';

const FileId = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'a file id');
const Params = z.object({ site_id: pathId(63), id: FileId });
const DerivativeParams = Params.extend({
  sha256: z.string().regex(/^[0-9a-f]{64}$/, 'a sha256 in hex'),
  name: z.string().regex(/^[0-9a-f]{32}\.(jpg|png|webp|avif)$/, 'a derivative name'),
});
const Redirect = z.never().optional().meta({ description: 'Redirect to the transformed image (Location)' });
const tags = ['files'];

/**
 * Public delivery of files (spec "Files and media": page delivery resolves file references to their public asset
 * address): a file is public while a published item of its site points at it through an m2o; anything else is 404,
 * whoever asks. Throttled per IP like page delivery. Originals may be kept a minute (the file may stop being used),
 * derivatives a year by anyone (their address names the bytes and the parameters).
 */
export const deliverAssetsRoutes: FastifyPluginAsync<AppDeps & { transformer: Transformer }> = async (plain, deps) => {
  const app = plain.withTypeProvider<ZodTypeProvider>();
  const { limiter, config, storage, transformer } = deps;
  const rule = { max: config.SVC_DELIVER_RATE_LIMIT, windowS: 60 };

  /** The file if its site may deliver it publicly, else 404. */
  const deliverable = async (req: FastifyRequest, reply: FastifyReply, site: string, id: string) => {
    if (rule.max > 0) await enforceRate(limiter, reply, [{ key: `deliver:ip:${req.ip}`, rule }]);
    if (!SITE_ID_PATTERN.test(site)) throw new FileNotDelivered();
    const schema = await deps.schemas.read(site).catch(() => null);
    if (!schema) throw new FileNotDelivered();
    const used = await readAsSite(deps.db, site, (trx) =>
      referencedByPublished(trx, site, schema, FILES_COLLECTION, id),
    );
    const found = used ? await deps.items.find(site, FILES_COLLECTION, id) : null;
    if (!found) throw new FileNotDelivered();
    return fileSource(site, id, found.record as Record<string, unknown>);
  };

  app.get(
    '/api/v1/deliver/assets/:site_id/:id',
    {
      config: { caller: 'public', site: false },
      schema: {
        tags,
        summary: 'Deliver a file that published content uses (public), or redirect to a transformed image',
        params: Params,
        querystring: TransformQuery,
        response: { 200: Binary, 302: Redirect, 304: NoContent, 422: errorEnvelope(422) },
      },
    },
    async (req, reply) => {
      const { site_id: site, id } = req.params;
      const file = await deliverable(req, reply, site, id);
      if (!asksTransform(req.query))
        return sendObject(reply, req, storage, file.filename, file, () => new FileNotDelivered(), 'public, max-age=60');
      const t = await resolveTransform(deps, site, req.query, req.headers.accept ?? '', file);
      const name = derivativeName(t);
      const folder = fileDerivatives(site, id, file.sha256);
      await transformer.ensure(file, t, `${folder}${name}`, adHoc(req.query) ? { folder } : undefined);
      if (req.query.format === 'auto' || (req.query.preset !== undefined && req.query.format === undefined))
        void reply.header('vary', 'Accept');
      return reply
        .header('cache-control', 'public, max-age=60')
        .redirect(`/api/v1/deliver/assets/${site}/${id}/derivatives/${file.sha256}/${name}`, 302);
    },
  );

  app.get(
    '/api/v1/deliver/assets/:site_id/:id/derivatives/:sha256/:name',
    {
      config: { caller: 'public', site: false },
      schema: {
        tags,
        summary: 'Deliver a transformed image of a file that published content uses (public)',
        params: DerivativeParams,
        response: { 200: Binary, 304: NoContent },
      },
    },
    async (req, reply) => {
      const { site_id: site, id, sha256, name } = req.params;
      const file = await deliverable(req, reply, site, id);
      if (file.sha256 !== sha256) throw new FileNotDelivered();
      const key = `${fileDerivatives(site, id, sha256)}${name}`;
      return sendDerivative(reply, req, storage, key, () => new FileNotDelivered(), 'public');
    },
  );
};
