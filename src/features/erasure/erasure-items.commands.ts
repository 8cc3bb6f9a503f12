import type { AppDeps } from '../../deps.ts';
import { handleCommand } from '../../kernel/es/handle-command.ts';
import type { CommandContext } from '../../kernel/http/command-meta.ts';
import { newId } from '../../kernel/ids.ts';
import { shred, subjectKeyFingerprint } from '../../kernel/privacy/pii.ts';
import { readAsSite } from '../../kernel/tenancy/site.ts';
import { findItemsAnyState } from '../../../projections/item-documents/index.ts';
import { itemSubjectId } from '../schema/index.ts';
import { erasureStream, type ErasureCompleted } from './erasure.events.ts';
import { ItemSubjectNotFound, NothingSealed } from './erasure.errors.ts';

/**
 * Erasure of an item that is its own subject (a collection with `subject: { from: 'item' }`, e.g. customers): its
 * key is destroyed, so every personal value it was given, in the log and in the read models (which hold them sealed),
 * reads as the field's erased value for good; its other values stay. Proven like a person's erasure.
 */
export async function eraseItemSubject(
  deps: Pick<AppDeps, 'db' | 'store' | 'schemas' | 'clock'>,
  ctx: CommandContext,
  input: { collection: string; id: string; reason: string },
): Promise<{ erasureId: string }> {
  const { collection, id, reason } = input;
  const schema = await deps.schemas.read(ctx.siteId);
  if (schema.collections.get(collection)?.subject?.from !== 'item') throw new ItemSubjectNotFound();
  const found = await readAsSite(deps.db, ctx.siteId, (db) => findItemsAnyState(db, ctx.siteId, [{ collection, id }]));
  if (!found.size) throw new ItemSubjectNotFound();
  const subjectId = itemSubjectId(ctx.siteId, collection, id);
  const keyFingerprint = await subjectKeyFingerprint(deps.db, subjectId);
  if (!keyFingerprint) throw new NothingSealed();
  const erasureId = newId();
  const by = ctx.actor.id;
  const stream = erasureStream(ctx.siteId, erasureId);
  const started = { erasureId, subjectId, reason, by, at: ctx.now.toISOString() };
  await handleCommand(
    deps.store,
    { initialState: () => null, evolve: (s) => s, decide: () => [{ type: 'ErasureStarted', data: started }] },
    stream,
    null,
    { metadata: ctx.metadata, fresh: true },
  );
  await shred(deps.db, subjectId);
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
  await deps.store.append(stream, [{ type: 'ErasureCompleted', data: proof, metadata: ctx.metadata }], {
    expectedVersion: 1,
  });
  return { erasureId };
}
