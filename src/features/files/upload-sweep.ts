import type { AppDeps } from '../../deps.ts';
import { handleCommand, readState } from '../../kernel/es/handle-command.ts';
import type { EventMetadata } from '../../kernel/es/event.ts';
import { listSites } from '../../../projections/sites/index.ts';
import { uploadDecider } from './upload.decider.ts';
import { uploadStream } from '../../contracts/files/upload.events.ts';

/** How long after its address expired an upload may still be registered before the sweep removes its bytes. */
export const REGISTRATION_GRACE_MS = 60 * 60 * 1000;

/**
 * Removes what uploads left in storage and will never use: bytes of addresses that expired (plus the grace) without
 * a registration, and leftovers of uploads that ended (registered, refused, or with no stream at all). Each expiry is
 * an event (`UploadExpired`). Run by one node at a time (a loop of the files slice); answers the uploads removed.
 */
export async function sweepUploads(deps: Pick<AppDeps, 'db' | 'store' | 'storage'>, now: Date): Promise<number> {
  let removed = 0;
  for (const site of await listSites(deps.db, null)) {
    const prefix = `sites/${site.id}/uploads/`;
    const ids = new Set((await deps.storage.list(prefix)).map((k) => k.slice(prefix.length).split('/')[0]!));
    for (const uploadId of ids) {
      const { state } = await readState(deps.store, uploadDecider, uploadStream(site.id, uploadId));
      const waiting = state.phase === 'authorized' || state.phase === 'received';
      if (waiting && Date.parse(state.expiresAt) + REGISTRATION_GRACE_MS > now.getTime()) continue;
      if (waiting) {
        const metadata: EventMetadata = {
          siteId: site.id,
          actor: { type: 'system', id: 'upload-sweep' },
          correlationId: `upload:${uploadId}`,
          causationId: null,
          requestId: null,
          occurredAt: now.toISOString(),
        };
        const data = { uploadId, now: now.toISOString() };
        await handleCommand(
          deps.store,
          uploadDecider,
          uploadStream(site.id, uploadId),
          { type: 'ExpireUpload', data },
          { metadata },
        );
      }
      for (const key of await deps.storage.list(`${prefix}${uploadId}/`)) await deps.storage.delete(key);
      removed++;
    }
  }
  return removed;
}
