import { createReadStream } from 'node:fs';
import type { FastifyRequest } from 'fastify';
import type { AppDeps } from '../../deps.ts';
import { handleCommand } from '../../kernel/es/handle-command.ts';
import type { CommandContext } from '../../kernel/http/command-meta.ts';
import { newId } from '../../kernel/ids.ts';
import type { CollectionSchema } from '../items/index.ts';
import { fileObjectKey, guarded, valuesFromBytes } from './file.commands.ts';
import type { ReceivedUpload, UploadRefused } from './upload-receive.ts';
import { uploadDecider } from './upload.decider.ts';
import { uploadStream } from '../../contracts/files/upload.events.ts';

/** A refusal event keeps this much of a filename (a hostile one may be 10 000 characters). */
const LOGGED_FILENAME = 300;
/** Text from the request as an event can hold it: NUL (which no JSON column takes) and lone surrogates replaced. */
const loggable = (s: string, max: number) =>
  Buffer.from(s.slice(0, max), 'utf8').toString('utf8').replaceAll('\0', '\uFFFD');

/**
 * Records a refusal of bytes that arrived without an upload address (a multipart part, an import) as
 * `UploadRefused` on an upload stream of their own, as the address flow records its refusals. Answers its id.
 */
export async function recordUploadRefusal(
  deps: Pick<AppDeps, 'store'>,
  ctx: CommandContext,
  input: { filename: string; declaredMimeType: string; refused: UploadRefused },
): Promise<string> {
  const uploadId = newId();
  const data = {
    uploadId,
    code: input.refused.refusal.code,
    message: loggable(input.refused.refusal.message, 1000),
    filename: loggable(input.filename, LOGGED_FILENAME),
    declaredMimeType: loggable(input.declaredMimeType, 100),
    bytesRead: input.refused.bytesRead,
    by: ctx.actor.id,
    now: ctx.now.toISOString(),
  };
  await handleCommand(
    deps.store,
    uploadDecider,
    uploadStream(ctx.siteId, uploadId),
    { type: 'RefuseUpload', data },
    { metadata: ctx.metadata },
  );
  return uploadId;
}

/**
 * Bytes that passed the upload guard become file records (multipart uploads, imports): the create rule and the
 * written fields are checked for each, the bytes stored under each new file, and the records created in one append,
 * so several files are created together or not at all. Bytes stored for a create that then fails are removed.
 */
export async function createFiles(
  deps: AppDeps,
  req: FastifyRequest,
  ctx: CommandContext,
  input: {
    schema: CollectionSchema;
    values: Record<string, unknown>;
    uploads: { filename: string; received: ReceivedUpload }[];
  },
) {
  const { schema: s, uploads } = input;
  const guard = deps.items.check;
  const scope = await guard.authorizeWrite(req, s, 'create', null, input.values);
  const { id: _presetId, ...presets } = scope.presets;
  const items = deps.items.write
    .newItems(
      s.collection,
      uploads.map(() => input.values),
      presets,
    )
    .map((item, i) => {
      const bytes = guarded(uploads[i]!.received);
      return { ...item, values: { ...item.values, ...valuesFromBytes(uploads[i]!.filename, bytes) }, bytes };
    });
  for (const item of items) await guard.checkValidation(req, s, item.id, item.values, scope);
  const stored: string[] = [];
  try {
    for (const [i, item] of items.entries()) {
      const key = fileObjectKey(ctx.siteId, item.id, item.bytes.sha256);
      stored.push(key);
      await deps.storage.put(key, createReadStream(uploads[i]!.received.path), { contentType: item.bytes.mimeType });
    }
    const bulk = items.length > 1;
    return await deps.items.write.create(ctx, {
      schema: s,
      items: items.map(({ bytes: _b, ...p }) => p),
      bulk,
      as: req,
    });
  } catch (err) {
    await Promise.all(stored.map((key) => deps.storage.delete(key).catch(() => undefined)));
    throw err;
  }
}
