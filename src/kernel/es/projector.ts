import {
  sql,
  OperationNodeTransformer,
  TableNode,
  type KyselyPlugin,
  type QueryId,
  type RootOperationNode,
  type Transaction,
} from 'kysely';
import type { Keyring } from '../crypto/keyring.ts';
import type { Db, DB } from '../db/database.ts';
import type { DomainEvent, StoredEvent } from './event.ts';

/** Physical name of a read-model table: the live one, or the one a rebuild fills before the swap. */
export type TableName = (logical: string) => string;

/**
 * What every runner of projectors (the inline store, the rebuilding engine, the async worker, the subscription)
 * hands `apply` besides the transaction: the instance keyring, which opens the subject keys of personal data.
 */
export interface ProjectionContext {
  keyring: Keyring;
}

/** The context of a runner given none: no instance key, so subject keys are expected in clear. */
export const noInstanceKey: ProjectionContext = { keyring: { keys: new Map(), activeKeyId: null } };

/** A stored event of one of E's types: a union over them, so `switch (e.type)` narrows `e.data`. */
export type StoredEventOf<E extends DomainEvent> = E extends DomainEvent ? StoredEvent<E> : never;

interface ProjectorBase {
  name: string;
  version: number;
  /** inline: in the append transaction (read-your-writes); async: a checkpointed worker. */
  mode: 'inline' | 'async';
  tables: readonly string[];
  /** Its rows are instance-wide (accounts, sessions): applied under `_system`, not under the event's site. */
  instanceWide?: boolean;
  createTables(db: Db, t: TableName): Promise<void>;
  /** Owner-side objects the projector needs besides its tables (functions); run as the owner at every start. */
  prepare?(db: Db): Promise<void>;
}

/**
 * A read model's writer as the engine holds it, its event type erased. It owns its tables (each with a `site_id`
 * column; the engine adds row-level security), applies events idempotently, and has a version: bumping it rebuilds.
 */
export interface Projector extends ProjectorBase {
  /** Event types it applies ('*' for all); others are skipped without a call. */
  handles: readonly string[] | '*';
  apply: (trx: Transaction<DB>, event: StoredEvent, t: TableName, ctx: ProjectionContext) => Promise<void>;
}

/** A projector as a read model declares it: the events it takes are its slices' union types. */
export interface ProjectorSpec<E extends DomainEvent> extends ProjectorBase {
  /** A misspelt type fails to compile; '*' only for a projector of every event (`E` = `DomainEvent`). */
  handles: readonly E['type'][] | (DomainEvent extends E ? '*' : never);
  /**
   * `trx` writes the tables by their logical names (`trx.insertInto('pages')`), also during a rebuild; `t` gives
   * the physical name for raw SQL; `ctx` carries the instance keyring (for `unseal`).
   */
  apply: (trx: Transaction<DB>, event: StoredEventOf<E>, t: TableName, ctx: ProjectionContext) => Promise<void>;
}

export const liveTable: TableName = (logical) => logical;

/**
 * Declares a projector over the events `E` (given explicitly: without it `handles` accepts no type). Its result is
 * the erased `Projector` the engine holds in one list with the others.
 */
export function defineProjector<E extends DomainEvent = never>(spec: ProjectorSpec<E>): Projector {
  // The engine calls `apply` only with events whose type `handles` names (handlesEvent), which are E's events.
  const apply = spec.apply as Projector['apply'];
  const handles = spec.handles as readonly string[] | '*';
  return {
    ...spec,
    apply: async (trx, event, t, ctx) => {
      if (event.type === SITE_DELETED && !spec.instanceWide) {
        // A deleted site leaves no row in any read model of its site: every table has a `site_id`.
        for (const table of spec.tables)
          await sql`delete from ${sql.table(t(table))} where site_id = ${event.siteId}`.execute(trx);
        // Only a projector that names the event hears it too ('*' would write a row for the site again).
        if (handles === '*' || !handles.includes(SITE_DELETED)) return;
      }
      await apply(physicalTables(trx, spec.tables, t), event, t, ctx);
    },
  };
}

/**
 * The event that ends a site (`features/sites`): every read model that is not instance-wide is handed it, and the
 * projector's own wrapper deletes the site's rows from its tables, in the append's transaction for inline ones and
 * at catch-up for the others (so a teardown cut short by a crash completes when the workers resume).
 */
export const SITE_DELETED = 'SiteDeleted';

export const handlesEvent = (p: Projector, type: string): boolean =>
  p.handles === '*' || p.handles.includes(type) || (type === SITE_DELETED && !p.instanceWide);

/**
 * During a rebuild the projector's tables are twins under other names; kysely's `insertInto` takes only a table of
 * `DB`, so a plugin renames the logical tables in every query (references and raw `sql.table` too) instead.
 */
function physicalTables(trx: Transaction<DB>, tables: readonly string[], t: TableName): Transaction<DB> {
  const renamed = new Map(tables.filter((name) => t(name) !== name).map((name) => [name, t(name)]));
  if (renamed.size === 0) return trx;
  const transformer = new RenameTables(renamed);
  const plugin: KyselyPlugin = {
    transformQuery: (args): RootOperationNode => transformer.transformNode(args.node, args.queryId),
    transformResult: async (args) => args.result,
  };
  return trx.withPlugin(plugin);
}

class RenameTables extends OperationNodeTransformer {
  constructor(private readonly renamed: ReadonlyMap<string, string>) {
    super();
  }

  protected override transformTable(node: TableNode, queryId?: QueryId): TableNode {
    const physical = node.table.schema ? undefined : this.renamed.get(node.table.identifier.name);
    return physical ? TableNode.create(physical) : super.transformTable(node, queryId);
  }
}
