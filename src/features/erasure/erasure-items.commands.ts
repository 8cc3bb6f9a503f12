import type { AppDeps } from '../../deps.ts';
import type { EventMetadata } from '../../kernel/es/event.ts';
import type { CommandContext } from '../../kernel/http/command-meta.ts';
import { shredForGood, subjectKeyFingerprint } from '../../platform/privacy/pii.ts';
import { readAsSite } from '../../kernel/tenancy/site.ts';
import { incompleteErasures } from '../../../projections/erasures/index.ts';
import { findItemsAnyState } from '../../../projections/item-documents/index.ts';
import { shredRunsConcerning } from '../flows/index.ts';
import { itemSubjectId } from '../../contracts/schema/schema.types.ts';
import type { ErasureCompleted } from '../../contracts/erasure/erasure.events.ts';
import { recordProof, startErasure } from './erasure.record.ts';
import { ItemSubjectNotFound, NothingSealed } from './erasure.errors.ts';

type Deps = Pick<AppDeps, 'db' | 'store' | 'schemas' | 'clock' | 'config'>;

/** Whether an erasure's subject is an item (its own subject) rather than a person. */
export const isItemSubject = (subjectId: string) => subjectId.startsWith('item:');

/**
 * Erasure of an item that is its own subject (a collection with `subject: { from: 'item' }`, e.g. customers): its
 * key is destroyed for good, so every personal value it was given, in the log and in the read models (which hold
 * them sealed), reads as the field's erased value, and none can be given to it again; its other values stay. Proven
 * like a person's erasure; one cut short is completed when asked again (or by the resuming loop).
 */
export async function eraseItemSubject(
  deps: Deps,
  ctx: CommandContext,
  input: { collection: string; id: string; reason: string },
): Promise<{ erasureId: string; siteId: string; resumed: boolean }> {
  const { collection, id, reason } = input;
  const schema = await deps.schemas.read(ctx.siteId);
  if (schema.collections.get(collection)?.subject?.from !== 'item') throw new ItemSubjectNotFound();
  const found = await readAsSite(deps.db, ctx.siteId, (db) => findItemsAnyState(db, ctx.siteId, [{ collection, id }]));
  if (!found.size) throw new ItemSubjectNotFound();
  const subjectId = itemSubjectId(ctx.siteId, collection, id);
  const open = (await incompleteErasures(deps.db, { subjectId }))[0];
  if (open) {
    await completeItemErasure(deps, open, ctx.metadata);
    return { erasureId: open.erasureId, siteId: open.siteId, resumed: true };
  }
  if (!(await subjectKeyFingerprint(deps.db, deps.config.keyring, subjectId))) throw new NothingSealed();
  const erasureId = await startErasure(deps.store, ctx, { subjectId, reason });
  await completeItemErasure(deps, { siteId: ctx.siteId, erasureId, subjectId }, ctx.metadata);
  return { erasureId, siteId: ctx.siteId, resumed: false };
}

/** The shredding and the proof of an item's erasure; each step finds its work done or does it. */
export async function completeItemErasure(
  deps: Deps,
  open: { siteId: string; erasureId: string; subjectId: string },
  metadata: EventMetadata,
): Promise<void> {
  const { siteId, erasureId, subjectId } = open;
  // Null when a run cut short destroyed the key already: the proof then names no fingerprint.
  const keyFingerprint = await subjectKeyFingerprint(deps.db, deps.config.keyring, subjectId);
  await shredForGood(deps.db, subjectId);
  // Flow runs that met the item (a webhook's payload written into it) hold their values under keys of their own.
  await shredRunsConcerning(deps, [subjectId]);
  const proof: ErasureCompleted['data'] = {
    erasureId,
    subjectId,
    keyFingerprint,
    revoked: { sessions: 0, apiKeys: 0 },
    // The read models hold the item's personal values sealed: nothing was ever opened into them.
    scrubbed: { readModels: [], mailOutbox: 0 },
    shredded: [`subject:${subjectId}`],
    at: deps.clock.now().toISOString(),
  };
  await recordProof(deps.store, siteId, proof, metadata);
}
