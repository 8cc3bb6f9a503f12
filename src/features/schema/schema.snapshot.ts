import type { EventStore } from '../../kernel/es/event-store.ts';
import { readState } from '../../kernel/es/handle-command.ts';
import { schemaDecider } from './schema.decider.ts';
import type { SchemaEvent } from '../../contracts/schema/schema.events.ts';
import { schemaStream } from '../../contracts/schema/schema.events.ts';
import { snapshotOf, type SchemaSnapshot, type SchemaState } from '../../contracts/schema/schema.snapshot.ts';
import { domainEvent } from '../../kernel/es/on-events.ts';

/** The site's schema now, or as it was at `asOf` (folded from the log: every change is an event). */
export async function schemaSnapshot(
  store: EventStore,
  siteId: string,
  asOf?: Date,
): Promise<SchemaSnapshot & { state: SchemaState }> {
  if (!asOf) {
    const { state, version } = await readState(store, schemaDecider, schemaStream(siteId));
    return { ...snapshotOf(state, version), state };
  }
  let state = schemaDecider.initialState();
  let version = 0;
  for await (const e of store.readStream<SchemaEvent>(schemaStream(siteId), { until: asOf })) {
    state = schemaDecider.evolve(state, domainEvent(e));
    version = e.streamVersion;
  }
  return { ...snapshotOf(state, version), state };
}
