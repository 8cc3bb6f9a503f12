import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { Readable } from 'node:stream';
import { z } from 'zod';
import type { AppDeps } from '../../../deps.ts';
import { siteOf } from '../../../kernel/http/access.ts';
import { commandContext } from '../../../kernel/http/command-meta.ts';
import { DomainError } from '../../../kernel/http/errors.ts';
import { dataEnvelope, errorEnvelope, listEnvelope, NoContent } from '../../../kernel/http/envelope.ts';
import { itemHttp } from '../../items/index.ts';
import { FILES_COLLECTION } from '../../../contracts/schema/system-collections.types.ts';
import { authorizeUpload, fileDerivatives, fileSource, receiveSignedUpload } from '../file.commands.ts';
import { FileNotFound } from '../file.errors.ts';
import { checkFolder } from '../folder.commands.ts';
import { refusePublicUpload } from '../media.guard.ts';
import { resolveTransform } from '../transform/transform.resolve.ts';
import { adHoc, asksTransform, derivativeName, TransformQuery } from '../transform/transform.params.ts';
import type { Transformer } from '../transform/transformer.ts';
import { Binary, FileId, FileValues } from './files.schemas.ts';
import { sendDerivative, sendObject } from './send-object.ts';

type Raw = Record<string, string>;
const IdParams = z.object({ id: FileId });
const PresignBody = z
  .object({
    filename: z.string().min(1).max(255),
    mimeType: z.string().min(3).max(100),
    size: z.number().int().min(0),
  })
  .strict();
const UploadAddress = z.object({
  uploadId: z.string(),
  url: z.string(),
  method: z.literal('PUT'),
  headers: z.record(z.string(), z.string()),
  expiresAt: z.string(),
});
const SignedQuery = z
  .object({ expires: z.coerce.number().int().min(0), signature: z.string().min(1).max(100) })
  .strict();
const Received = z.object({
  uploadId: z.string(),
  size: z.number().int(),
  sha256: z.string(),
  mimeType: z.string(),
  extension: z.string(),
  width: z.number().int().optional(),
  height: z.number().int().optional(),
});
const DerivativeParams = z.object({
  id: FileId,
  sha256: z.string().regex(/^[0-9a-f]{64}$/, 'a sha256 in hex'),
  name: z.string().regex(/^[0-9a-f]{32}\.(jpg|png|webp|avif)$/, 'a derivative name'),
});
const Redirect = z.never().optional().meta({ description: 'Redirect to the transformed image (Location)' });
/** Built as the routes register, once every slice has declared its codes. */
const uploadFailures = () => ({ 413: errorEnvelope(413), 415: errorEnvelope(415), 422: errorEnvelope(422) });
const tags = ['files'];
/** A download name that tells nothing but the id and the extension the bytes were admitted with. */
const neutralName = (id: string, filename: string) => {
  const ext = /\.([A-Za-z0-9]{1,10})$/.exec(filename)?.[1];
  return ext ? `${id}.${ext.toLowerCase()}` : id;
};
/** What serving a file's bytes reads from its record. */
const BYTE_FIELDS = ['sha256', 'type', 'filename'] as const;

/**
 * File records (spec "Files and media"): items of the system collection `files`, so lists, filters, `fields`,
 * relations and time travel work as for items, under the `media` rules. Bytes arrive at an upload address (a
 * presigned S3 PUT, or the service's signed PUT on disk), pass the upload guard, and become a file on registration
 * (POST /api/v1/files, with multipart uploads and imports, is `filesCreateRoutes`).
 */
export const filesRoutes: FastifyPluginAsync<AppDeps & { transformer: Transformer }> = async (plain, deps) => {
  const app = plain.withTypeProvider<ZodTypeProvider>();
  const { clock, authorizer, storage, transformer } = deps;
  const { items } = deps;
  const guard = items.check;
  const reader = items.read;
  const files = (req: FastifyRequest) => guard.collection(req, FILES_COLLECTION, { system: true });

  app.post(
    '/api/v1/files/presigned-url',
    {
      schema: {
        tags,
        summary: 'Get an address to upload a file to (a presigned PUT)',
        body: PresignBody,
        response: { 201: dataEnvelope(UploadAddress, 'Created'), ...uploadFailures() },
      },
    },
    async (req, reply) => {
      await refusePublicUpload(authorizer, req);
      await authorizer.require(req, FILES_COLLECTION, 'create');
      const address = await authorizeUpload(deps, commandContext(req, clock), req.body);
      reply.status(201);
      return { data: address };
    },
  );

  // The disk's upload address: the signature stands for the person it was handed to (no bearer token needed).
  await app.register(async (raw) => {
    raw.removeAllContentTypeParsers();
    raw.addContentTypeParser('*', (_req, payload, done) => done(null, payload));
    raw.withTypeProvider<ZodTypeProvider>().put(
      '/api/v1/files/upload/:id',
      {
        config: { caller: 'public' },
        schema: {
          tags,
          summary: 'Upload the bytes of a file to its signed address (disk storage)',
          params: IdParams,
          querystring: SignedQuery,
          response: { 200: dataEnvelope(Received), ...uploadFailures() },
        },
      },
      async (req, reply) => {
        const n = Number(req.headers['content-length']);
        const body = (req.body as Readable | undefined) ?? Readable.from([]);
        const ctx = commandContext(req, clock);
        try {
          const received = await receiveSignedUpload(deps, ctx, {
            uploadId: req.params.id,
            expires: req.query.expires,
            signature: req.query.signature,
            body,
            contentLength: Number.isSafeInteger(n) && n >= 0 ? n : undefined,
          });
          return { data: received };
        } catch (err) {
          // A body over the cap may still be arriving: close the connection rather than read it to the end.
          if (err instanceof DomainError && err.status === 413) void reply.header('connection', 'close');
          throw err;
        }
      },
    );
  });

  app.get(
    '/api/v1/files',
    {
      schema: {
        tags,
        summary: 'List files (the item list-query language)',
        querystring: itemHttp.ItemListQuery,
        response: { 200: itemHttp.ItemListBody },
      },
    },
    async (req) => {
      const s = await files(req);
      await guard.guardFor(req, FILES_COLLECTION);
      return reader.list(req, s, itemHttp.listRead(req, req.query as Raw));
    },
  );

  app.get(
    '/api/v1/files/:id',
    {
      schema: {
        tags,
        summary: 'Read a file record (asOf and version for its past)',
        params: IdParams,
        querystring: itemHttp.ItemReadQuery,
        response: { 200: itemHttp.ItemBody },
      },
    },
    async (req) => {
      const s = await files(req);
      await guard.guardFor(req, FILES_COLLECTION);
      return reader.get(req, s, req.params.id, itemHttp.itemRead(req, req.query as Raw));
    },
  );

  app.get(
    '/api/v1/files/:id/revisions',
    {
      schema: {
        tags,
        summary: 'List the revisions of a file record',
        params: IdParams,
        querystring: itemHttp.RevisionPage,
        response: { 200: listEnvelope(itemHttp.RevisionRecord, itemHttp.RevisionListMeta) },
      },
    },
    async (req) => reader.revisions(req, await files(req), req.params.id, itemHttp.revisionPage(req.query)),
  );

  app.patch(
    '/api/v1/files/:id',
    {
      schema: {
        tags,
        summary: 'Change the title, description, tags, folder or focal point of a file',
        params: IdParams,
        body: FileValues,
        response: { 200: itemHttp.ItemWriteBody },
      },
    },
    async (req) => {
      const s = await files(req);
      const { id } = req.params;
      const values = req.body;
      await guard.authorizeUpdate(req, s, id, values, (current) => ({ ...current, ...values }));
      await checkFolder(deps, siteOf(req), values.folder);
      const ctx = commandContext(req, clock);
      const res = await items.write.update(ctx, { schema: s, id, changes: values, as: req });
      const record =
        items.present.writtenRecord(id, res.state) ?? (await items.find(ctx.siteId, FILES_COLLECTION, id))!.record;
      return {
        data: await items.present.records(req, s, items.present.withNullFields(s, record)),
        meta: items.present.writeMeta(res),
      };
    },
  );

  app.delete(
    '/api/v1/files/:id',
    { schema: { tags, summary: 'Delete a file record', params: IdParams, response: { 204: NoContent } } },
    async (req, reply) => {
      const s = await files(req);
      await guard.authorizeWrite(req, s, 'delete', req.params.id);
      const held = await guard.refuseIfHeldUp(req, s, req.params.id);
      await items.write.delete(commandContext(req, clock), { schema: s, id: req.params.id }, held);
      return reply.status(204).send();
    },
  );

  /** The file's record as the caller may read it (404 otherwise), with what serving its bytes needs. */
  const readable = async (req: FastifyRequest, id: string) => {
    const s = await files(req);
    await guard.guardFor(req, FILES_COLLECTION);
    const shown = (await reader.one(req, s, id, { locale: itemHttp.readHeaders(req).locale })) as Record<
      string,
      unknown
    > | null;
    if (!shown) throw new FileNotFound({ id });
    // The record as the caller sees it serves, unless a field rule hid what serving needs: then it is read whole.
    const whole = BYTE_FIELDS.every((f) => Object.hasOwn(shown, f))
      ? shown
      : ((await items.find(siteOf(req), FILES_COLLECTION, id))?.record as Record<string, unknown> | undefined);
    if (!whole) throw new FileNotFound({ id });
    const source = fileSource(siteOf(req), id, whole);
    // A caller whose rule hides the name downloads under the id: the bytes are theirs to read, the name is not.
    return Object.hasOwn(shown, 'filename') ? source : { ...source, filename: neutralName(id, source.filename) };
  };

  app.get(
    '/api/v1/assets/:id',
    {
      schema: {
        tags,
        summary: "Serve a file's bytes, or redirect to a transformed image",
        params: IdParams,
        querystring: TransformQuery,
        response: { 200: Binary, 302: Redirect, 304: NoContent, 422: errorEnvelope(422) },
      },
    },
    async (req, reply) => {
      const { id } = req.params;
      const file = await readable(req, id);
      if (!asksTransform(req.query))
        return sendObject(reply, req, storage, file.filename, file, () => new FileNotFound({ id }));
      const siteId = siteOf(req);
      const t = await resolveTransform(deps, siteId, req.query, req.headers.accept ?? '', file);
      const name = derivativeName(t);
      const folder = fileDerivatives(siteId, id, file.sha256);
      await transformer.ensure(file, t, `${folder}${name}`, adHoc(req.query) ? { folder } : undefined);
      if (req.query.format === 'auto' || (req.query.preset !== undefined && req.query.format === undefined))
        void reply.header('vary', 'Accept');
      return reply
        .header('cache-control', 'private, no-cache')
        .redirect(`/api/v1/assets/${id}/derivatives/${file.sha256}/${name}`, 302);
    },
  );

  app.get(
    '/api/v1/assets/:id/derivatives/:sha256/:name',
    {
      schema: {
        tags,
        summary: 'Read a transformed image of a file (the address a transform request redirects to)',
        params: DerivativeParams,
        response: { 200: Binary, 304: NoContent },
      },
    },
    async (req, reply) => {
      const { id, sha256, name } = req.params;
      const file = await readable(req, id);
      if (file.sha256 !== sha256) throw new FileNotFound({ id });
      const key = `${fileDerivatives(siteOf(req), id, sha256)}${name}`;
      return sendDerivative(reply, req, storage, key, () => new FileNotFound({ id }));
    },
  );
};
