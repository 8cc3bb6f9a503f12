import type { FastifyRequest } from 'fastify';
import type { AppDeps } from '../../../deps.ts';
import { handleCommand, handleCommands, type StreamCommand } from '../../../kernel/es/handle-command.ts';
import { actorOf, siteOf } from '../../../kernel/http/access.ts';
import { commandMeta } from '../../../kernel/http/command-meta.ts';
import { ifMatchVersion } from '../../../kernel/http/if-match.ts';
import { DomainError } from '../../../kernel/http/errors.ts';
import { itemPermissions, readGuard } from './item-permissions.ts';
import { withSite } from '../../../kernel/tenancy/site.ts';
import type { CollectionRecord, RelationRecord } from '../../../../projections/schema/index.ts';
import { findItem } from '../../../../projections/item-documents/index.ts';
import { relationOn, type SiteSchema } from '../../../../projections/item-documents/index.ts';
import type { FieldDef, Workflow } from '../../schema/index.ts';
import { itemDecider, type ItemCommand, type ItemState } from '../item.decider.ts';
import { itemStream, type ItemValues } from '../item.events.ts';
import { revealRecords, sealItemValues } from '../encrypted-fields.ts';

/** What a route needs to know about the collection it serves. */
export interface CollectionSchema {
  collection: CollectionRecord;
  /** The collection's fields in their order. */
  fields: FieldDef[];
  /** The whole site's schema: a query may follow relations into other collections. */
  schema: SiteSchema;
  /** Every relation of the site (a query may follow them into other collections). */
  relations: RelationRecord[];
}

export type CommandCtx = {
  collection: string;
  id: string;
  fields: FieldDef[];
  now: string;
  by: string;
  workflow?: Workflow | null;
};
/**
 * One item a multi-item command changes, and how. `make` sees the item as its stream has it, again on every retry,
 * so a change computed from its values is never stale; null leaves the item alone.
 */
export type ItemTarget = {
  collection: string;
  id: string;
  make: (ctx: CommandCtx, current: ItemState) => ItemCommand | null;
};

/** Shared steps of the item routes: load the collection's schema, check the writer, send a command, read back. */
export function itemContext({
  db,
  store,
  clock,
  config,
  authorizer,
  schemas,
}: Pick<AppDeps, 'db' | 'store' | 'clock' | 'config' | 'authorizer' | 'schemas'>) {
  // One schema per request: the routes and the commands they send see the same one.
  const perRequest = new WeakMap<FastifyRequest, Promise<SiteSchema>>();
  const requestSchema = (req: FastifyRequest) => {
    let p = perRequest.get(req);
    if (!p) perRequest.set(req, (p = schemas.read(siteOf(req))));
    return p;
  };
  const workflowOf = async (req: FastifyRequest, collection: string) =>
    (await requestSchema(req)).collections.get(collection)?.workflow ?? null;
  const schemaOf = async (req: FastifyRequest, collection: string): Promise<CollectionSchema> => {
    // The caller's permissions are needed next: look them up while the schema's version is read.
    if (req.actor) permissions.rights(req).catch(() => undefined);
    const schema = await requestSchema(req);
    const c = schema.collections.get(collection);
    if (!c) throw new DomainError('NOT_FOUND', `collection ${collection} not found`, { path: ['collection'] });
    return {
      collection: c,
      fields: [...(schema.fields.get(collection)?.values() ?? [])],
      schema,
      relations: schema.relations,
    };
  };
  const mayAdminister = (req: FastifyRequest) => authorizer.requireSiteAdmin(req);
  const permissions = itemPermissions({ db, authorizer });
  const send = async (
    req: FastifyRequest,
    collection: string,
    id: string,
    make: (ctx: CommandCtx) => ItemCommand,
    fields: FieldDef[],
  ) => {
    const siteId = siteOf(req);
    const now = clock.now();
    const workflow = await workflowOf(req, collection);
    const ctx = { collection, id, fields, now: now.toISOString(), by: actorOf(req).id, workflow };
    return handleCommand(store, itemDecider, itemStream(siteId, collection, id), make(ctx), {
      metadata: commandMeta(req, siteId, now),
      expectedVersion: ifMatchVersion(req),
    });
  };
  /** Commands on several items, appended atomically (all or nothing); each validates against its collection. */
  const sendMany = async (req: FastifyRequest, targets: ItemTarget[], fieldsOf: (collection: string) => FieldDef[]) => {
    const siteId = siteOf(req);
    const now = clock.now();
    const by = actorOf(req).id;
    const schema = await requestSchema(req);
    return handleCommands(
      store,
      targets.map((t) => ({
        decider: itemDecider as StreamCommand['decider'],
        streamId: itemStream(siteId, t.collection, t.id),
        command: (current: ItemState) =>
          t.make(
            {
              collection: t.collection,
              id: t.id,
              fields: fieldsOf(t.collection),
              now: now.toISOString(),
              by,
              workflow: schema.collections.get(t.collection)?.workflow ?? null,
            },
            current,
          ),
      })),
      { metadata: commandMeta(req, siteId, now) },
    );
  };
  /** Encrypts the values of encrypted fields (see encrypted-fields.ts). */
  const seal = (req: FastifyRequest, s: CollectionSchema, id: string, values: ItemValues, path: string[] = []) =>
    sealItemValues(config.keyring, siteOf(req), s.collection.name, id, s.fields, values, path);
  /**
   * Records as the caller may see them: fields it may not read dropped, each encrypted value decrypted where the
   * caller may (see `decryptable`), '***' everywhere else. A first pass only notes which rows hold encrypted values.
   */
  const present = async <T>(req: FastifyRequest, s: CollectionSchema, records: T): Promise<T> => {
    const name = s.collection.name;
    const wanted = new Map<string, Set<string>>();
    revealRecords(config.keyring, siteOf(req), s.schema, name, records, (collection, id) => {
      wanted.set(collection, (wanted.get(collection) ?? new Set()).add(id));
      return false;
    });
    const decrypt = wanted.size ? await permissions.decryptable(req, s.schema, wanted) : () => false;
    const revealed = revealRecords(config.keyring, siteOf(req), s.schema, name, records, decrypt);
    const guard = readGuard(await permissions.rights(req));
    if (!guard) return revealed;
    const hide = (r: Record<string, unknown>) =>
      Object.fromEntries(
        Object.entries(r).filter(([k]) => !s.schema.fields.get(name)?.has(k) || guard.visible(name, k)),
      );
    return (Array.isArray(revealed) ? revealed.map(hide) : hide(revealed as Record<string, unknown>)) as T;
  };
  const read = (req: FastifyRequest, collection: string, id: string) =>
    withSite(db, siteOf(req), (trx) => findItem(trx, siteOf(req), collection, id));
  return { schemaOf, mayAdminister, send, sendMany, read, seal, present, ...permissions };
}

/**
 * A written record as answers show it: every field of the collection present, `null` where it has no value
 * (as reads show it; o2m and m2m fields hold no value of their own and stay out). Hidden fields go later.
 */
export function withNullFields<T extends Record<string, unknown>>(s: CollectionSchema, record: T): T {
  const out: Record<string, unknown> = { ...record };
  for (const f of s.fields) {
    if (Object.hasOwn(out, f.field)) continue;
    const kind = relationOn(s.schema, s.collection.name, f.field)?.kind;
    if (kind === 'o2m' || kind === 'm2m') continue;
    Object.defineProperty(out, f.field, { value: null, enumerable: true, writable: true, configurable: true });
  }
  return out as T;
}
