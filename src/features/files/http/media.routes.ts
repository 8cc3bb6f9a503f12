import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { Readable } from 'node:stream';
import { z } from 'zod';
import type { AppDeps } from '../../../deps.ts';
import { refusePublicUpload, requireMedia } from '../media.guard.ts';
import { siteOf } from '../../../kernel/http/access.ts';
import { commandContext } from '../../../kernel/http/command-meta.ts';
import { dataEnvelope, errorEnvelope, NoContent } from '../../../kernel/http/envelope.ts';
import { deleteMedia, mediaDerivativeKey, readMedia, recordMediaRefusal, storeMedia } from '../media.commands.ts';
import { resolveTransform } from '../transform/transform.resolve.ts';
import { adHoc, asksTransform, derivativeName, TransformQuery } from '../transform/transform.params.ts';
import type { Transformer } from '../transform/transformer.ts';
import { sendDerivative, sendObject } from './send-object.ts';
import type { MediaState } from '../media.decider.ts';
import { MediaNotFound } from '../media.errors.ts';
import { uploadPolicyOf } from '../upload-config.ts';
import { receiveUpload, UploadRefused } from '../upload-receive.ts';
import { Binary, MediaKey, MediaRecord } from './files.schemas.ts';

const KeyParams = z.object({ key: MediaKey });
const DerivativeParams = z.object({
  key: MediaKey,
  sha256: z.string().regex(/^[0-9a-f]{64}$/, 'a sha256 in hex'),
  name: z.string().regex(/^[0-9a-f]{32}\.(jpg|png|webp|avif)$/, 'a derivative name'),
});
const Redirect = z.never().optional().meta({ description: 'Redirect to the transformed image (Location)' });
/** Built as the routes register, once every slice has declared its codes. */
const uploadFailures = () => ({ 413: errorEnvelope(413), 415: errorEnvelope(415), 422: errorEnvelope(422) });

const record = (key: string, s: Extract<MediaState, { exists: true }>) => ({
  key,
  size: s.media.size,
  mimeType: s.media.mimeType,
  extension: s.media.extension,
  sha256: s.media.sha256,
  width: s.media.width ?? null,
  height: s.media.height ?? null,
  createdAt: s.createdAt,
  createdBy: s.createdBy,
  updatedAt: s.updatedAt,
  updatedBy: s.updatedBy,
});

/** The declared type of a raw body: the Content-Type without parameters, lower case. */
const declaredType = (req: FastifyRequest) =>
  (req.headers['content-type'] ?? 'application/octet-stream').split(';')[0]!.trim().toLowerCase();

const contentLength = (req: FastifyRequest) => {
  const n = Number(req.headers['content-length']);
  return Number.isSafeInteger(n) && n >= 0 ? n : undefined;
};

/**
 * Raw media by key (spec "Files and media"): `POST` stores the body through the upload guard (`media:create`, or
 * `media:update` to replace), `GET` downloads it as an attachment with `nosniff`, `DELETE` removes it. Bodies
 * are not parsed: every content type reaches the handler as the request's stream.
 */
export const mediaRoutes: FastifyPluginAsync<AppDeps & { transformer: Transformer }> = async (plain, deps) => {
  const { authorizer, clock, storage } = deps;
  const { transformer } = deps;
  const app = plain.withTypeProvider<ZodTypeProvider>();
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_req, payload, done) => done(null, payload));

  app.post(
    '/api/v1/media/:key',
    {
      schema: {
        params: KeyParams,
        tags: ['files'],
        summary: 'Upload raw bytes under a media key (the upload guard applies)',
        response: {
          200: dataEnvelope(MediaRecord, 'Replaced'),
          201: dataEnvelope(MediaRecord, 'Created'),
          ...uploadFailures(),
        },
      },
    },
    async (req, reply) => {
      const siteId = siteOf(req);
      const { key } = req.params;
      const body = req.body as Readable | undefined;
      const ctx = commandContext(req, clock);
      const declared = { filename: key, mimeType: declaredType(req), contentLength: contentLength(req) };
      const refuse = async (refused: UploadRefused) => {
        body?.resume();
        await recordMediaRefusal(deps, ctx, { key, filename: key, declaredMimeType: declared.mimeType, refused });
        if (refused.refusal.status === 413) void reply.header('connection', 'close');
        throw refused.refusal;
      };
      // Like any permission refusal it writes nothing: a caller without rights cannot grow a key's stream.
      await refusePublicUpload(authorizer, req);
      const before = await readMedia(deps, siteId, key);
      await requireMedia(authorizer, req, before.exists ? 'update' : 'create');
      const policy = await uploadPolicyOf(deps, siteId);
      let upload;
      try {
        upload = await receiveUpload(body ?? emptyBody(), declared, policy, deps.config.SVC_UPLOAD_TMP_DIR);
      } catch (err) {
        if (err instanceof UploadRefused) return refuse(err);
        throw err;
      }
      try {
        const res = await storeMedia(deps, ctx, { key, upload });
        reply.status(before.exists ? 200 : 201);
        return { data: record(key, res.state as Extract<MediaState, { exists: true }>) };
      } finally {
        await upload.discard();
      }
    },
  );

  app.get(
    '/api/v1/media/:key',
    {
      schema: {
        params: KeyParams,
        querystring: TransformQuery,
        tags: ['files'],
        summary: 'Download the bytes of a media key as an attachment, or redirect to a transformed image',
        response: { 200: Binary, 302: Redirect, 304: NoContent, 422: errorEnvelope(422) },
      },
    },
    async (req, reply) => {
      await requireMedia(authorizer, req, 'read');
      const { key } = req.params;
      const siteId = siteOf(req);
      const state = await readMedia(deps, siteId, key);
      if (!state.exists) throw new MediaNotFound({ key });
      if (!asksTransform(req.query))
        return sendObject(reply, req, storage, key, state.media, () => new MediaNotFound({ key }));
      const accept = req.headers.accept ?? '';
      const t = await resolveTransform(deps, siteId, req.query, accept, state.media);
      const name = derivativeName(t);
      const derivative = mediaDerivativeKey(siteId, key, state.media.sha256, name);
      const folder = mediaDerivativeKey(siteId, key, state.media.sha256, '');
      await transformer.ensure(state.media, t, derivative, adHoc(req.query) ? { folder } : undefined);
      // Bytes replaced or deleted while the transform ran took their derivatives along; this one came too late.
      const after = await readMedia(deps, siteId, key);
      if (!after.exists || after.media.sha256 !== state.media.sha256) {
        await storage.delete(derivative);
        throw new MediaNotFound({ key });
      }
      if (req.query.format === 'auto' || (req.query.preset !== undefined && req.query.format === undefined))
        void reply.header('vary', 'Accept');
      return reply
        .header('cache-control', 'private, no-cache')
        .redirect(`/api/v1/media/${key}/derivatives/${state.media.sha256}/${name}`, 302);
    },
  );

  app.get(
    '/api/v1/media/:key/derivatives/:sha256/:name',
    {
      schema: {
        params: DerivativeParams,
        tags: ['files'],
        summary: 'Read a transformed image of a media key (the address a transform request redirects to)',
        response: { 200: Binary, 304: NoContent },
      },
    },
    async (req, reply) => {
      await requireMedia(authorizer, req, 'read');
      const { key, sha256, name } = req.params;
      const siteId = siteOf(req);
      const state = await readMedia(deps, siteId, key);
      // A derivative of other bytes than the key's current ones is gone with them.
      if (!state.exists || state.media.sha256 !== sha256) throw new MediaNotFound({ key });
      return sendDerivative(
        reply,
        req,
        storage,
        mediaDerivativeKey(siteId, key, sha256, name),
        () => new MediaNotFound({ key }),
      );
    },
  );

  app.delete(
    '/api/v1/media/:key',
    {
      schema: {
        params: KeyParams,
        tags: ['files'],
        summary: 'Delete a media key and its bytes',
        response: { 204: NoContent },
      },
    },
    async (req, reply) => {
      await requireMedia(authorizer, req, 'delete');
      await deleteMedia(deps, commandContext(req, clock), req.params.key);
      return reply.status(204).send();
    },
  );
};

function emptyBody(): Readable {
  return Readable.from([]);
}
