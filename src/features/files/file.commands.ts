import { createReadStream } from 'node:fs';
import type { FastifyRequest } from 'fastify';
import type { Readable } from 'node:stream';
import type { AppDeps } from '../../deps.ts';
import { handleCommand, readState } from '../../kernel/es/handle-command.ts';
import type { CommandContext } from '../../kernel/http/command-meta.ts';
import { newId } from '../../kernel/ids.ts';
import type { CollectionSchema } from '../items/index.ts';
import { admitDeclared } from './upload-guard/inspect.ts';
import { uploadPolicyOf } from './upload-config.ts';
import { uploadDecider, type UploadState } from './upload.decider.ts';
import {
  UploadAddressInvalid,
  UploadAlreadyUsed,
  UploadNotFound,
  UploadNotReceived,
  UploadTooLarge,
} from './upload.errors.ts';
import { uploadStream, type GuardedBytes } from '../../contracts/files/upload.events.ts';
import { receiveUpload, UploadRefused, type ReceivedUpload } from './upload-receive.ts';

type Deps = AppDeps;

/** How long an upload address stays valid. */
const ADDRESS_SECONDS = 15 * 60;

/** A file's bytes: under the site and the file, addressed by their hash. */
export const fileObjectKey = (siteId: string, fileId: string, sha256: string) =>
  `sites/${siteId}/files/${fileId}/${sha256}`;
/** What serving and transforming a file needs, from its record. */
export function fileSource(siteId: string, id: string, record: Record<string, unknown>) {
  const focal = record.focal_point as { x?: unknown; y?: unknown } | null | undefined;
  return {
    objectKey: fileObjectKey(siteId, id, String(record.sha256)),
    mimeType: String(record.type),
    sha256: String(record.sha256),
    filename: String(record.filename),
    ...(typeof record.width === 'number' ? { width: record.width } : {}),
    ...(typeof record.height === 'number' ? { height: record.height } : {}),
    ...(typeof focal?.x === 'number' && typeof focal.y === 'number' ? { focal: { x: focal.x, y: focal.y } } : {}),
  };
}

/** Where a file's transformed images live, under the bytes they were made from. */
export const fileDerivatives = (siteId: string, fileId: string, sha256: string) =>
  `sites/${siteId}/files/${fileId}/derivatives/${sha256}/`;
/** An upload's bytes before they become a file: `incoming` as a client PUTs them to S3, `<sha256>` once guarded. */
const uploadFolder = (siteId: string, uploadId: string) => `sites/${siteId}/uploads/${uploadId}/`;
const incomingKey = (siteId: string, uploadId: string) => `${uploadFolder(siteId, uploadId)}incoming`;
const guardedKey = (siteId: string, uploadId: string, sha256: string) => `${uploadFolder(siteId, uploadId)}${sha256}`;

const readUpload = async (deps: Pick<AppDeps, 'store'>, siteId: string, uploadId: string): Promise<UploadState> =>
  (await readState(deps.store, uploadDecider, uploadStream(siteId, uploadId))).state;

const sendUpload = (
  deps: Pick<AppDeps, 'store'>,
  ctx: CommandContext,
  uploadId: string,
  command: Parameters<typeof uploadDecider.decide>[0],
) => handleCommand(deps.store, uploadDecider, uploadStream(ctx.siteId, uploadId), command, { metadata: ctx.metadata });

/** The address a client uploads a file's bytes to (S3: presigned PUT; disk: the service's signed, single-use PUT). */
export async function authorizeUpload(
  deps: Deps,
  ctx: CommandContext,
  input: { filename: string; mimeType: string; size: number },
) {
  const policy = await uploadPolicyOf(deps, ctx.siteId);
  admitDeclared(input, policy);
  if (input.size > policy.maxBytes) throw new UploadTooLarge({ maxBytes: policy.maxBytes });
  const uploadId = newId();
  const expires = Math.floor(ctx.now.getTime() / 1000) + ADDRESS_SECONDS;
  const expiresAt = new Date(expires * 1000).toISOString();
  const data = { uploadId, ...input, by: ctx.actor.id, now: ctx.now.toISOString(), expiresAt };
  await handleCommand(
    deps.store,
    uploadDecider,
    uploadStream(ctx.siteId, uploadId),
    { type: 'AuthorizeUpload', data },
    {
      metadata: ctx.metadata,
      fresh: true,
    },
  );
  const presigned = await deps.storage.presignPut(incomingKey(ctx.siteId, uploadId), {
    contentType: input.mimeType,
    contentLength: input.size,
    expiresInSeconds: ADDRESS_SECONDS,
  });
  if (presigned) return { uploadId, ...presigned };
  const signature = deps.tokens.signAddress([ctx.siteId, uploadId, String(expires)]);
  return {
    uploadId,
    url: `/api/v1/files/upload/${uploadId}?expires=${expires}&signature=${signature}`,
    method: 'PUT' as const,
    headers: { 'content-type': input.mimeType, 'content-length': String(input.size) },
    expiresAt,
  };
}

/** Runs the guard on bytes meant for an upload; a refusal is recorded on the upload and answered. */
async function guardUploadBytes(
  deps: Deps,
  ctx: CommandContext,
  state: Extract<UploadState, { uploadId: string }>,
  body: Readable,
  contentLength: number | undefined,
): Promise<ReceivedUpload> {
  const policy = await uploadPolicyOf(deps, ctx.siteId);
  const capped = { ...policy, maxBytes: Math.min(policy.maxBytes, state.size) };
  const refuse = async (refused: UploadRefused) => {
    const data = {
      uploadId: state.uploadId,
      code: refused.refusal.code,
      message: refused.refusal.message,
      filename: state.filename,
      declaredMimeType: state.mimeType,
      bytesRead: refused.bytesRead,
      by: ctx.actor.id,
      now: ctx.now.toISOString(),
    };
    await sendUpload(deps, ctx, state.uploadId, { type: 'RefuseUpload', data });
    await removeFolder(deps, uploadFolder(ctx.siteId, state.uploadId));
    throw refused.refusal;
  };
  let received: ReceivedUpload;
  try {
    received = await receiveUpload(
      body,
      { filename: state.filename, mimeType: state.mimeType, contentLength, exactSize: state.size },
      capped,
      deps.config.SVC_UPLOAD_TMP_DIR,
    );
  } catch (err) {
    if (err instanceof UploadRefused) return refuse(err);
    throw err;
  }
  return received;
}

/** What the guard established about received bytes, as the upload events keep it. */
export const guarded = (r: ReceivedUpload): GuardedBytes => ({
  size: r.size,
  sha256: r.sha256,
  mimeType: r.inspection.mimeType,
  extension: r.inspection.extension,
  ...(r.inspection.width !== undefined ? { width: r.inspection.width } : {}),
  ...(r.inspection.height !== undefined ? { height: r.inspection.height } : {}),
});

/** A file record's values that come from its bytes (set when it is created, read-only after). */
export const valuesFromBytes = (filename: string, bytes: GuardedBytes) => ({
  filename,
  type: bytes.mimeType,
  filesize: bytes.size,
  sha256: bytes.sha256,
  width: bytes.width ?? null,
  height: bytes.height ?? null,
});

/**
 * PUT /api/v1/files/upload/:key (the disk's upload address): the signature and its time, then the guard on the
 * bytes as they arrive; accepted bytes wait under the upload until the file is registered. Single use.
 */
export async function receiveSignedUpload(
  deps: Deps,
  ctx: CommandContext,
  input: { uploadId: string; expires: number; signature: string; body: Readable; contentLength?: number },
) {
  const { uploadId } = input;
  if (!deps.tokens.verifyAddress([ctx.siteId, uploadId, String(input.expires)], input.signature))
    throw new UploadAddressInvalid({ problem: 'signature' });
  if (input.expires * 1000 < ctx.now.getTime()) throw new UploadAddressInvalid({ problem: 'expired' });
  const state = await readUpload(deps, ctx.siteId, uploadId);
  if (state.phase === 'none') throw new UploadNotFound({ uploadId });
  if (state.phase !== 'authorized') throw new UploadAlreadyUsed({ uploadId });
  const received = await guardUploadBytes(deps, ctx, state, input.body, input.contentLength);
  try {
    const bytes = guarded(received);
    await deps.storage.put(guardedKey(ctx.siteId, uploadId, bytes.sha256), createReadStream(received.path), {
      contentType: bytes.mimeType,
    });
    await sendUpload(deps, ctx, uploadId, {
      type: 'ReceiveUpload',
      data: { ...bytes, uploadId, now: ctx.now.toISOString() },
    });
    return { uploadId, ...bytes };
  } finally {
    await received.discard();
  }
}

/**
 * POST /api/v1/files: an upload of the caller's becomes a file record (an item of the system collection `files`).
 * Bytes PUT to S3 are guarded now; the disk's were guarded when they arrived. The record's values from the bytes
 * (filename, type, size, hash, dimensions) are set here and read-only after.
 */
export async function registerFile(
  deps: Deps,
  req: FastifyRequest,
  ctx: CommandContext,
  input: { uploadId: string; schema: CollectionSchema; values: Record<string, unknown> },
) {
  const { uploadId, schema: s } = input;
  const state = await readUpload(deps, ctx.siteId, uploadId);
  // Another person's upload is not there for the caller.
  if (state.phase === 'none' || state.by !== ctx.actor.id) throw new UploadNotFound({ uploadId });
  if (state.phase !== 'authorized' && state.phase !== 'received') throw new UploadAlreadyUsed({ uploadId });
  // The create rule and the fields the caller writes now; its validation once the values from the bytes are known.
  const guard = deps.items.check;
  const scope = await guard.authorizeWrite(req, s, 'create', null, input.values);
  const { id: _presetId, ...presets } = scope.presets;
  const [item] = deps.items.write.newItems(s.collection, [input.values], presets);
  const fileId = item!.id;
  let received: ReceivedUpload | null = null;
  try {
    let bytes: GuardedBytes;
    if (state.phase === 'received' && state.bytes) bytes = state.bytes;
    else {
      const incoming = await deps.storage.get(incomingKey(ctx.siteId, uploadId));
      if (!incoming) throw new UploadNotReceived({ uploadId });
      received = await guardUploadBytes(deps, ctx, state, incoming.body, incoming.size);
      bytes = guarded(received);
    }
    const values = { ...item!.values, ...valuesFromBytes(state.filename, bytes) };
    await guard.checkValidation(req, s, fileId, values, scope);
    // The upload is claimed before the file is made: of two registrations racing, one makes a file.
    await sendUpload(deps, ctx, uploadId, {
      type: 'RegisterUpload',
      data: { uploadId, fileId, by: ctx.actor.id, now: ctx.now.toISOString() },
    });
    const target = fileObjectKey(ctx.siteId, fileId, bytes.sha256);
    if (received) await deps.storage.put(target, createReadStream(received.path), { contentType: bytes.mimeType });
    else await deps.storage.copy(guardedKey(ctx.siteId, uploadId, bytes.sha256), target);
    const created = await deps.items.write.create(ctx, {
      schema: s,
      items: [{ ...item!, values }],
      bulk: false,
      as: req,
    });
    await removeFolder(deps, uploadFolder(ctx.siteId, uploadId));
    return created;
  } finally {
    await received?.discard();
  }
}

async function removeFolder(deps: Pick<AppDeps, 'storage'>, prefix: string): Promise<void> {
  for (let batch = await deps.storage.list(prefix); batch.length > 0; batch = await deps.storage.list(prefix))
    await Promise.all(batch.map((k) => deps.storage.delete(k)));
}
