import { createHash } from 'node:crypto';
import type { StoredEvent } from '../../../kernel/es/event.ts';
import { dictFrom } from '../../../kernel/safe/keys.ts';
import type { CollectionSchema } from '../../items/index.ts';
import { itemStream, type ItemEvent } from '../../../contracts/items/item.events.ts';
import type { DataChain } from '../flow-template.ts';
import type { StepContext, StepResult } from './flow-run.ops.ts';
import { isOfType } from '../../../kernel/es/on-events.ts';

type Handler = (c: StepContext, o: Record<string, unknown>, chain: DataChain) => Promise<StepResult>;

const resolve = (output: unknown): StepResult => ({ edge: 'resolve', output });
const str = (v: unknown) => (typeof v === 'string' ? v : v === null || v === undefined ? '' : JSON.stringify(v));
const values = (v: unknown): Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? dictFrom(Object.entries(v)) : dictFrom([]);

/** The causation every write of a step records: a graph is acyclic, so a node runs once per run, whatever its tries. */
export const stepCause = (runId: string, nodeId: string) => `flow-step:${runId}/${nodeId}`;

/**
 * The id `item.create` gives an item when its options name none: derived from the run and the node, so a step tried
 * again (after a crash between the write and its record, or a timeout that raced the write) finds the item it made.
 * A UUID (version 8) for uuid keys; integer keys are always given.
 */
export function stepItemId(primaryKeyType: string, runId: string, nodeId: string): string | undefined {
  if (primaryKeyType === 'integer' || primaryKeyType === 'bigInteger') return undefined;
  const h = createHash('sha256').update(`${runId}/${nodeId}`).digest().subarray(0, 16);
  if (primaryKeyType !== 'uuid') return h.toString('base64url');
  h[6] = (h[6]! & 0x0f) | 0x80;
  h[8] = (h[8]! & 0x3f) | 0x80;
  const x = h.toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}

/** The event of the item's stream this step wrote before, if any (its causation names the step). */
async function writtenBefore(c: StepContext, s: CollectionSchema, id: string): Promise<StoredEvent<ItemEvent> | null> {
  const cause = stepCause(c.runId, c.nodeId);
  for await (const e of c.deps.store.readStream<ItemEvent>(itemStream(c.siteId, s.collection.name, id)))
    if (e.metadata.causationId === cause) return e;
  return null;
}

/** The item as it reads now: the output of a write this step had made before it was tried again. */
async function recordNow(c: StepContext, s: CollectionSchema, id: string) {
  const found = await c.deps.items.find(c.siteId, s.collection.name, id);
  return found ? c.deps.items.present.withNullFields(s, found.record) : { id };
}

/**
 * The item operations, through the item routes' checks for the runAs role. Each write records the step as its
 * causation and first looks for a write of the same step in the item's stream: a step tried again after a crash
 * between its write and its record answers with what it wrote and writes nothing (exactly once per step).
 */
export const itemHandlers = {
  create: (async (c, o) => {
    const guard = c.deps.items.check;
    const s = await guard.collection(c.principal, String(o.collection));
    const body = values(o.data);
    const id = body.id ?? stepItemId(s.collection.primaryKeyType, c.runId, c.nodeId);
    const items = await guard.authorizeCreate(c.principal, s, [id === undefined ? body : { ...body, id }], false);
    if (c.dryRun) return resolve({ wouldHave: 'created an item', collection: o.collection, values: items[0]?.values });
    const before = await writtenBefore(c, s, items[0]!.id);
    if (before && isOfType(before, 'ItemCreated')) {
      const e = before.data;
      const audit = { created_at: e.at, created_by: e.by, updated_at: e.at, updated_by: e.by };
      return resolve(c.deps.items.present.withNullFields(s, { ...e.values, id: e.id, ...audit }));
    }
    const created = await c.deps.items.write.create(c.command, { schema: s, items, bulk: false, as: c.principal });
    return resolve(created.records[0] ?? null);
  }) satisfies Handler,
  read: (async (c, o) => {
    const rows = await c.deps.items.read.as(c.principal, String(o.collection), {
      ...(o.id !== undefined ? { id: str(o.id) } : {}),
      ...(o.filter ? { filter: values(o.filter) } : {}),
      limit: Number(o.limit ?? 25),
    });
    return resolve(o.id !== undefined ? (rows[0] ?? null) : rows);
  }) satisfies Handler,
  update: (async (c, o) => {
    const guard = c.deps.items.check;
    const s = await guard.collection(c.principal, String(o.collection));
    const id = str(o.id);
    const changes = values(o.data);
    delete changes.id;
    await guard.authorizeUpdate(c.principal, s, id, changes, (current) => ({ ...current, ...changes }));
    if (c.dryRun) return resolve({ wouldHave: 'updated an item', collection: o.collection, id, changes });
    if (await writtenBefore(c, s, id)) return resolve(await recordNow(c, s, id));
    const res = await c.deps.items.write.update(c.command, { schema: s, id, changes, as: c.principal });
    const record = c.deps.items.present.writtenRecord(id, res.state);
    return resolve(record ? c.deps.items.present.withNullFields(s, record) : { id });
  }) satisfies Handler,
  delete: (async (c, o) => {
    const guard = c.deps.items.check;
    const s = await guard.collection(c.principal, String(o.collection));
    const id = str(o.id);
    if (!c.dryRun && (await writtenBefore(c, s, id))) return resolve({ id, deleted: true });
    await guard.authorizeWrite(c.principal, s, 'delete', id);
    const held = await guard.refuseIfHeldUp(c.principal, s, id);
    if (c.dryRun) return resolve({ wouldHave: 'deleted an item', collection: o.collection, id });
    await c.deps.items.write.delete(c.command, { schema: s, id }, held);
    return resolve({ id, deleted: true });
  }) satisfies Handler,
};
