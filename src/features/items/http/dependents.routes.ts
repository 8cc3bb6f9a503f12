import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../../deps.ts';
import { siteOf } from '../../../kernel/http/access.ts';
import { commandContext } from '../../../kernel/http/command-meta.ts';
import { readAsSite } from '../../../kernel/tenancy/site.ts';
import {
  findDependents,
  referencesTo,
  referencingItems,
  type Dependent,
  type Reference,
} from '../../../../projections/item-documents/index.ts';
import { sendItemCommands, type ItemTarget } from '../item.commands.ts';
import {
  HardDeleteOnly,
  InvalidReassignTarget,
  ReferencedItemNotFound,
  ReferenceFieldForbidden,
  ReferenceRequired,
  ReferencingItemsForbidden,
  RelationNotPointingHere,
} from '../item-dependents.errors.ts';
import { DependentRecordsExist } from '../item.errors.ts';
import type { ItemValues } from '../../../contracts/items/item.events.ts';
import { itemGuard } from '../item.guard.ts';
import { readItem, type CollectionSchema } from '../item.reads.ts';
import type { Scope } from '../../access/index.ts';
import { dataEnvelope, errorEnvelope } from '../../../kernel/http/envelope.ts';
import { ItemParams } from './item-params.ts';
import { DependentsBody } from './items.schemas.ts';

const ResolveBody = z
  .object({
    action: z.enum(['set_null', 'delete', 'reassign']),
    relation: z.string().min(1).max(64),
    newTargetId: z.union([z.string().min(1).max(128), z.number().int()]).optional(),
    hard: z.boolean().optional(),
  })
  .strict();
type Resolve = z.infer<typeof ResolveBody>;

/** GET …/:id/dependents and POST …/:id/resolve-dependents (spec "Items"). */
export const dependentsRoutes: FastifyPluginAsync<AppDeps> = async (plain, deps) => {
  const app = plain.withTypeProvider<ZodTypeProvider>();
  const tags = ['items'];
  const { db } = deps;
  const guard = itemGuard(deps);
  const { authorizeWrite, readableIds, readableSamples } = guard;

  /** 404 for a missing item and, alike, for one outside the caller's read conditions. */
  const liveItem = async (req: FastifyRequest, s: CollectionSchema, id: string) => {
    const name = s.collection.name;
    if (!(await readItem(deps, siteOf(req), name, id)) || !(await readableIds(req, s.schema, name, [id])).has(id))
      throw new ReferencedItemNotFound({ id, collection: name });
  };

  // Writers only: the listing serves a delete. It counts every referencing item (they decide whether the delete is
  // held up) but names only those the caller may read.
  app.get(
    '/api/v1/items/:collection/:id/dependents',
    {
      schema: {
        tags,
        summary: 'List the records that reference an item',
        params: ItemParams,
        response: { 200: DependentsBody },
      },
    },
    async (req) => {
      const s = await guard.collection(req, req.params.collection);
      // A row the caller may not read answers like a missing one, before any write right is judged.
      await liveItem(req, s, req.params.id);
      await authorizeWrite(req, s, 'delete', req.params.id);
      const dependents = await readAsSite(db, siteOf(req), (trx) =>
        findDependents(trx, siteOf(req), s.schema, s.collection.name, req.params.id),
      );
      const blocking = dependents.some((d) => d.onDelete === 'restrict');
      return { data: { blocking, dependents: await readableSamples(req, s.schema, dependents) } };
    },
  );

  app.post(
    '/api/v1/items/:collection/:id/resolve-dependents',
    {
      schema: {
        tags,
        summary: 'Resolve the references to an item (set null, delete or reassign)',
        params: ItemParams,
        body: ResolveBody,
        response: {
          200: dataEnvelope(
            z.object({
              action: z.string(),
              relation: z.string(),
              affected: z.number().int(),
              ids: z.array(z.string()),
            }),
          ),
          422: errorEnvelope(422),
        },
      },
    },
    async (req) => {
      const s = await guard.collection(req, req.params.collection);
      const { collection, id } = req.params;
      const body = req.body;
      // Purging erases history: site admins only, like the other irreversible acts.
      if (body.hard) guard.mayAdminister(req);
      await liveItem(req, s, id);
      await authorizeWrite(req, s, 'delete', id);
      const refs = referencesTo(s.schema, collection).filter((r) => r.relation.id === body.relation);
      if (!refs.length) throw new RelationNotPointingHere({ relation: body.relation, collection });
      if (body.hard && body.action !== 'delete') throw new HardDeleteOnly();
      const targets: ItemTarget[] = [];
      for (const ref of refs) targets.push(...(await targetsOf(req, s, ref, body, id)));
      if (body.action === 'delete') await refuseIfHeldUp(req, s, targets);
      // One atomic append: every referencing item changes, or none does.
      const results = targets.length
        ? await sendItemCommands(deps, commandContext(req, deps.clock), s.schema, targets)
        : [];
      const ids = [...new Set(targets.filter((_, i) => results[i]!.events.length > 0).map((t) => t.id))];
      return { data: { action: body.action, relation: body.relation, affected: ids.length, ids } };
    },
  );

  /** The referencing items of one reference and what resolving does to each, once the caller may do it to them. */
  async function targetsOf(
    req: FastifyRequest,
    s: CollectionSchema,
    ref: Reference,
    body: Resolve,
    id: string,
  ): Promise<ItemTarget[]> {
    const collection = s.collection.name;
    // The referencing items change too: the caller needs that right on their collection.
    const scope = await guard.scopeFor(req, ref.collection, body.action === 'delete' ? 'delete' : 'update');
    if (body.action !== 'delete' && scope.fields && !scope.fields.has(ref.field))
      throw new ReferenceFieldForbidden({ collection: ref.collection, field: ref.field });
    const change = await changeFor(req, s, ref, body, collection, id);
    const items = await readAsSite(db, siteOf(req), (trx) => referencingItems(trx, siteOf(req), ref, collection, id));
    const ids = items.map((i) => i.id);
    await refuseOutside(req, s, ref.collection, ids, scope, body.action);
    return ids.map((itemId) => ({
      collection: ref.collection,
      id: itemId,
      // From the item as its stream has it: one changed since the lookup is judged afresh (and left alone
      // when it no longer points here), and a retry never writes a value computed from a stale one.
      make: (data, current) => {
        if (current.status !== 'live' || !pointsHere(ref, current.values[ref.field], collection, id)) return null;
        if (change === 'delete') return { type: body.hard ? 'PurgeItem' : 'DeleteItem', data };
        return { type: 'UpdateItem', data: { ...data, changes: change(current.values[ref.field]) } };
      },
    }));
  }

  /** Deleting the referencing items is a delete like any other: restrict relations pointing at them hold it up. */
  async function refuseIfHeldUp(req: FastifyRequest, s: CollectionSchema, targets: ItemTarget[]): Promise<void> {
    const byCollection = new Map<string, string[]>();
    for (const t of targets) byCollection.set(t.collection, [...(byCollection.get(t.collection) ?? []), t.id]);
    const blocking: Dependent[] = [];
    await readAsSite(db, siteOf(req), async (trx) => {
      for (const [c, ids] of byCollection) {
        const found = await findDependents(trx, siteOf(req), s.schema, c, ids);
        blocking.push(...found.filter((d) => d.onDelete === 'restrict'));
      }
    });
    if (blocking.length) throw new DependentRecordsExist(await readableSamples(req, s.schema, blocking));
  }

  /**
   * 403 when a referencing item lies outside the conditions of the caller's rule for what resolving does to it; the
   * error names it when the caller may read it, else only its collection.
   */
  async function refuseOutside(
    req: FastifyRequest,
    s: CollectionSchema,
    collection: string,
    ids: string[],
    scope: Scope,
    action: Resolve['action'],
  ): Promise<void> {
    const outside = await guard.idsOutside(req, s.schema, collection, ids, scope);
    if (!outside.length) return;
    const verb = action === 'delete' ? 'delete' : 'update';
    const named = [...(await readableIds(req, s.schema, collection, outside))];
    throw new ReferencingItemsForbidden({ verb, collection, ids: named, count: outside.length });
  }

  /** What resolving does to each referencing item of one reference, checked once for the reference. */
  async function changeFor(
    req: FastifyRequest,
    s: CollectionSchema,
    ref: Reference,
    body: Resolve,
    collection: string,
    id: string,
  ): Promise<'delete' | ((value: unknown) => ItemValues)> {
    const field = s.schema.fields.get(ref.collection)?.get(ref.field);
    if (body.action === 'delete') return 'delete';
    if (body.action === 'set_null') {
      if (ref.kind === 'entry')
        return (v) => ({ [ref.field]: entries(v).filter((e) => !isEntryOf(e, collection, id)) });
      if (!field || field.required || !field.nullable)
        throw new ReferenceRequired({ collection: ref.collection, field: ref.field });
      return () => ({ [ref.field]: null });
    }
    // Every reference of the relation points at an item of this collection (on either side of an m2m).
    const raw = body.newTargetId;
    const target = raw === undefined ? null : await readItem(deps, siteOf(req), collection, String(raw));
    // A target the caller may not read answers as a missing one: reassigning must not reveal it exists.
    const readable = target && (await readableIds(req, s.schema, collection, [String(raw)])).has(String(raw));
    if (!readable || String(raw) === id) throw new InvalidReassignTarget({ collection });
    // The reference keeps the type of what holds it: an integer field, or an m2a entry of an integer-keyed collection.
    const numeric =
      ref.kind === 'entry'
        ? INTEGER_KEYS.includes(s.collection.primaryKeyType)
        : INTEGER_KEYS.includes(field?.type ?? '');
    const next = numeric ? Number(raw) : String(raw);
    if (ref.kind === 'entry')
      return (v) => ({
        [ref.field]: entries(v).map((e) => (isEntryOf(e, collection, id) ? { collection, item: next } : e)),
      });
    return () => ({ [ref.field]: next });
  }
};

const INTEGER_KEYS: string[] = ['integer', 'bigInteger'];
const entries = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** An m2a entry `{ collection, item }` naming this item (an integer key may be stored as a number). */
function isEntryOf(e: unknown, collection: string, id: string): boolean {
  const entry = (e ?? {}) as { collection?: unknown; item?: unknown };
  return entry.collection === collection && String(entry.item) === id;
}

/** Whether a referencing item's value (as its stream has it now) still points at `collection/id`. */
function pointsHere(ref: Reference, value: unknown, collection: string, id: string): boolean {
  if (ref.kind === 'entry') return entries(value).some((e) => isEntryOf(e, collection, id));
  return value !== null && value !== undefined && String(value) === id;
}
