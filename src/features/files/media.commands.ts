import { createReadStream } from 'node:fs';
import type { AppDeps } from '../../deps.ts';
import { handleCommand, readState } from '../../kernel/es/handle-command.ts';
import type { CommandContext } from '../../kernel/http/command-meta.ts';
import { mediaDecider, type MediaState } from './media.decider.ts';
import { mediaStream, type StoredMedia } from '../../contracts/files/media.events.ts';
import type { ReceivedUpload, UploadRefused } from './upload-receive.ts';
import { firstOfType } from '../../kernel/es/on-events.ts';

type Deps = Pick<AppDeps, 'store' | 'storage'>;

/** Where a media key's bytes live: under the site, addressed by their hash (a new body never overwrites a read). */
export const mediaObjectKey = (siteId: string, key: string, sha256: string) => `sites/${siteId}/media/${key}/${sha256}`;

/** Where a media key's transformed images live: beside the original, under the bytes they were made from. */
export const mediaDerivativeKey = (siteId: string, key: string, sha256: string, name: string) =>
  `${mediaDerivatives(siteId, key, sha256)}${name}`;
const mediaDerivatives = (siteId: string, key: string, sha256: string) =>
  `sites/${siteId}/media/${key}/derivatives/${sha256}/`;

/** Removes an original's bytes and every derivative made from them. */
async function removeObject(
  storage: AppDeps['storage'],
  siteId: string,
  key: string,
  media: { objectKey: string; sha256: string },
) {
  await storage.delete(media.objectKey);
  await removeDerivatives(storage, mediaDerivatives(siteId, key, media.sha256));
}

/** Removes every object under a derivatives folder. */
export async function removeDerivatives(storage: AppDeps['storage'], prefix: string): Promise<void> {
  for (let batch = await storage.list(prefix); batch.length > 0; batch = await storage.list(prefix))
    await Promise.all(batch.map((k) => storage.delete(k)));
}

/** The media key's state, folded from its stream (from this node's cache onwards). */
export async function readMedia(deps: Pick<AppDeps, 'store'>, siteId: string, key: string): Promise<MediaState> {
  return (await readState(deps.store, mediaDecider, mediaStream(siteId, key))).state;
}

/**
 * Stores bytes that passed the guard under a media key: the object first (under a key of its own), then the event
 * that makes it the key's; the object it replaced is removed after. A failed command leaves the new object to the
 * storage sweep rather than risk removing bytes another writer's event names.
 */
export async function storeMedia(deps: Deps, ctx: CommandContext, input: { key: string; upload: ReceivedUpload }) {
  const { key, upload } = input;
  const i = upload.inspection;
  const media: StoredMedia = {
    objectKey: mediaObjectKey(ctx.siteId, key, upload.sha256),
    size: upload.size,
    mimeType: i.mimeType,
    extension: i.extension,
    sha256: upload.sha256,
    ...(i.width !== undefined ? { width: i.width } : {}),
    ...(i.height !== undefined ? { height: i.height } : {}),
  };
  await deps.storage.put(media.objectKey, createReadStream(upload.path), { contentType: media.mimeType });
  const data = { ...media, key, by: ctx.actor.id, now: ctx.now.toISOString() };
  const res = await handleCommand(
    deps.store,
    mediaDecider,
    mediaStream(ctx.siteId, key),
    { type: 'StoreMedia', data },
    ctx,
  );
  const stored = firstOfType(res.events, 'MediaStored')?.data;
  const replaced = stored?.replaced ?? null;
  if (replaced && replaced.objectKey !== media.objectKey) await removeObject(deps.storage, ctx.siteId, key, replaced);
  return res;
}

/** Deletes a media key: the event, then its bytes. */
export async function deleteMedia(deps: Deps, ctx: CommandContext, key: string): Promise<void> {
  const data = { key, by: ctx.actor.id, now: ctx.now.toISOString() };
  const res = await handleCommand(
    deps.store,
    mediaDecider,
    mediaStream(ctx.siteId, key),
    { type: 'DeleteMedia', data },
    ctx,
  );
  const deleted = firstOfType(res.events, 'MediaDeleted')?.data;
  if (deleted) await removeObject(deps.storage, ctx.siteId, key, deleted);
}

/** Records the guard's refusal on the key's stream (the audit log shows it); nothing was stored. */
export async function recordMediaRefusal(
  deps: Pick<AppDeps, 'store'>,
  ctx: CommandContext,
  input: { key: string; filename: string; declaredMimeType: string; refused: UploadRefused },
): Promise<void> {
  const { refused, ...rest } = input;
  const data = {
    ...rest,
    code: refused.refusal.code,
    message: refused.refusal.message,
    bytesRead: refused.bytesRead,
    by: ctx.actor.id,
    now: ctx.now.toISOString(),
  };
  await handleCommand(
    deps.store,
    mediaDecider,
    mediaStream(ctx.siteId, input.key),
    { type: 'RecordUploadRefusal', data },
    ctx,
  );
}
