import multipart from '@fastify/multipart';
import type { SwaggerTransform } from '@fastify/swagger';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../../deps.ts';
import { commandContext, type CommandContext } from '../../../kernel/http/command-meta.ts';
import { errorEnvelope } from '../../../kernel/http/envelope.ts';
import { RefusedInput } from '../../../kernel/http/kernel.errors.ts';
import { openApiTransform } from '../../../platform/http/openapi.ts';
import { itemHttp, type CollectionSchema } from '../../items/index.ts';
import { FILES_COLLECTION } from '../../../contracts/schema/system-collections.types.ts';
import { createFiles, recordUploadRefusal } from '../file-create.commands.ts';
import { registerFile } from '../file.commands.ts';
import { fetchImport } from '../file-import.ts';
import { checkFolder } from '../folder.commands.ts';
import { refusePublicUpload } from '../media.guard.ts';
import { uploadPolicyOf } from '../upload-config.ts';
import { MAX_UPLOAD_BYTES } from '../upload-policy.ts';
import { FormRefused, partLimits, receiveForm, type FormFile } from '../upload-form.ts';
import { MultipartNoFile } from '../upload-form.errors.ts';
import { FileId, FileValues } from './files.schemas.ts';
import { formValues, MultipartBody } from './files-form.schema.ts';

const RegisterBody = FileValues.extend({ uploadId: FileId }).strict();
const ImportBody = FileValues.extend({
  url: z.string().min(1).max(2048).meta({ format: 'uri', description: 'An http(s) address the service fetches' }),
  filename: z.string().min(1).max(255).optional(),
}).strict();
/** Built as the routes register, once every slice has declared its codes. */
const uploadFailures = () => ({ 413: errorEnvelope(413), 415: errorEnvelope(415), 422: errorEnvelope(422) });
const tags = ['files'];

/** POST /api/v1/files documents both of its bodies: the JSON registration and the multipart upload. */
const twoBodies: SwaggerTransform = (input) => {
  const base = openApiTransform({ ...input, schema: { ...input.schema, body: RegisterBody } });
  const schema = base.schema as Record<string, unknown>;
  const content = { 'application/json': { schema: schema.body }, 'multipart/form-data': { schema: MultipartBody } };
  return { ...base, schema: { ...schema, body: { content } } };
};

/**
 * Creating file records (spec "Files and media"): `POST /api/v1/files` registers an upload of the address flow
 * (JSON `{ uploadId }`) or takes the files themselves (`multipart/form-data`), and `POST /api/v1/files/import`
 * fetches one from a URL. Bytes pass the one upload guard (`receiveUpload`) before anything is stored; a refusal is
 * recorded as `UploadRefused`. The multipart parser is registered here only, with a budget per request.
 */
export const filesCreateRoutes: FastifyPluginAsync<AppDeps> = async (plain, deps) => {
  // The largest cap any site may have; each request narrows the file size to its site's cap (partLimits).
  await plain.register(multipart, { ...partLimits(MAX_UPLOAD_BYTES), throwFileSizeLimit: true });
  const app = plain.withTypeProvider<ZodTypeProvider>();
  const { clock, authorizer } = deps;
  const guard = deps.items.check;
  /** The caller may upload (never the public role) and create files; answers the collection. */
  const allowed = async (req: FastifyRequest) => {
    await refusePublicUpload(authorizer, req);
    await authorizer.require(req, FILES_COLLECTION, 'create');
    return guard.collection(req, FILES_COLLECTION, { system: true });
  };

  /** Several guarded files (or one) become records; the temp files go whatever happens. */
  const create = async (
    req: FastifyRequest,
    reply: FastifyReply,
    s: CollectionSchema,
    ctx: CommandContext,
    values: FileValues,
    files: FormFile[],
  ) => {
    try {
      await checkFolder(deps, ctx.siteId, values.folder);
      const created = await createFiles(deps, req, ctx, { schema: s, values, uploads: files });
      const records = await deps.items.present.records(req, s, created.records);
      reply.status(201);
      return files.length === 1
        ? { data: records[0], meta: { revisionId: created.revisionIds[0] } }
        : { data: records, meta: { revisionIds: created.revisionIds } };
    } finally {
      await Promise.all(files.map((f) => f.received.discard()));
    }
  };

  /** Records a refusal of bytes and answers it; the rest of a request body being refused is not read. */
  const refuse = async (reply: FastifyReply, ctx: CommandContext, err: FormRefused, body: boolean): Promise<never> => {
    await recordUploadRefusal(deps, ctx, { ...err.part, refused: err.refused });
    if (body) void reply.header('connection', 'close');
    throw err.refused.refusal;
  };

  /** A multipart body's guarded files (in temp files) and the record's values from its fields. */
  const receiveMultipart = async (req: FastifyRequest, reply: FastifyReply, ctx: CommandContext) => {
    const policy = await uploadPolicyOf(deps, ctx.siteId);
    const form = await receiveForm(
      req.parts(partLimits(policy.maxBytes)),
      policy,
      deps.config.SVC_UPLOAD_TMP_DIR,
    ).catch((err: unknown) => (err instanceof FormRefused ? refuse(reply, ctx, err, true) : Promise.reject(err)));
    try {
      if (form.files.length === 0) throw new MultipartNoFile();
      return { values: formValues(form.fields), files: form.files };
    } catch (err) {
      await Promise.all(form.files.map((f) => f.received.discard()));
      throw err;
    }
  };

  app.post(
    '/api/v1/files',
    {
      config: { swaggerTransform: twoBodies },
      schema: {
        tags,
        summary: 'Create file records: register an uploaded file (JSON), or upload files (multipart/form-data)',
        // A multipart body is read by the handler as a stream (the parser leaves `body` unset).
        body: RegisterBody.nullish(),
        response: { 201: itemHttp.ItemsCreatedBody, ...uploadFailures() },
      },
    },
    async (req, reply) => {
      const s = await allowed(req);
      const ctx = commandContext(req, clock);
      if (req.isMultipart()) {
        const form = await receiveMultipart(req, reply, ctx);
        return create(req, reply, s, ctx, form.values, form.files);
      }
      if (!req.body) throw new RefusedInput({ message: 'a body is required', path: ['body'], reason: 'required' });
      const { uploadId, ...values } = req.body;
      await checkFolder(deps, ctx.siteId, values.folder);
      const created = await registerFile(deps, req, ctx, { uploadId, schema: s, values });
      reply.status(201);
      const [record] = await deps.items.present.records(req, s, created.records);
      return { data: record, meta: { revisionId: created.revisionIds[0] } };
    },
  );

  app.post(
    '/api/v1/files/import',
    {
      schema: {
        tags,
        summary: 'Create a file record from a file the service fetches from a URL',
        body: ImportBody,
        response: { 201: itemHttp.ItemsCreatedBody, ...uploadFailures() },
      },
    },
    async (req, reply) => {
      const s = await allowed(req);
      const ctx = commandContext(req, clock);
      const { url, filename, ...values } = req.body;
      // The folder first: a wrong one costs no fetch.
      await checkFolder(deps, ctx.siteId, values.folder);
      const policy = await uploadPolicyOf(deps, ctx.siteId);
      const file = await fetchImport(deps, { url, filename }, policy).catch((err: unknown) =>
        err instanceof FormRefused ? refuse(reply, ctx, err, false) : Promise.reject(err),
      );
      return create(req, reply, s, ctx, values, [file]);
    },
  );
};
