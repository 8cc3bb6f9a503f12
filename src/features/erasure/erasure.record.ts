import { WrongExpectedVersion, type EventStore } from '../../kernel/es/event-store.ts';
import type { EventMetadata } from '../../kernel/es/event.ts';
import { handleCommand } from '../../kernel/es/handle-command.ts';
import type { CommandContext } from '../../kernel/http/command-meta.ts';
import { newId } from '../../kernel/ids.ts';
import { erasureStream, type ErasureCompleted } from '../../contracts/erasure/erasure.events.ts';

/** Opens an erasure's stream with `ErasureStarted` (no personal data: the subject's id, who, why) and names it. */
export async function startErasure(
  store: EventStore,
  ctx: CommandContext,
  input: { subjectId: string; reason: string },
): Promise<string> {
  const erasureId = newId();
  const started = { erasureId, ...input, by: ctx.actor.id, at: ctx.now.toISOString() };
  await handleCommand(
    store,
    { initialState: () => null, evolve: (s) => s, decide: () => [{ type: 'ErasureStarted', data: started }] },
    erasureStream(ctx.siteId, erasureId),
    null,
    { metadata: ctx.metadata, fresh: true },
  );
  return erasureId;
}

/** Records an erasure's proof, once: when another run (asked again, the resuming loop) recorded it first, it stands. */
export async function recordProof(
  store: EventStore,
  siteId: string,
  proof: ErasureCompleted['data'],
  metadata: EventMetadata,
): Promise<void> {
  try {
    await store.append(
      erasureStream(siteId, proof.erasureId),
      [{ type: 'ErasureCompleted', data: proof, metadata: { ...metadata, siteId } }],
      { expectedVersion: 1 },
    );
  } catch (err) {
    if (!(err instanceof WrongExpectedVersion)) throw err;
  }
}
