import type { Transaction } from 'kysely';
import type { Db, DB } from '../db/database.ts';
import type { StoredEvent } from './event.ts';

/** Physical name of a read-model table: the live one, or the one a rebuild fills before the swap. */
export type TableName = (logical: string) => string;

/**
 * A read model's writer. It owns its tables (each with a `site_id` column; the engine adds
 * row-level security), applies events idempotently, and has a version: bumping it rebuilds.
 */
export interface Projector {
  name: string;
  version: number;
  /** inline: in the append transaction (read-your-writes); async: a checkpointed worker. */
  mode: 'inline' | 'async';
  tables: readonly string[];
  /** Event types it applies ('*' for all); others are skipped without a call. */
  handles: readonly string[] | '*';
  /** Its rows are instance-wide (accounts, sessions): applied under `_system`, not under the event's site. */
  instanceWide?: boolean;
  createTables(db: Db, t: TableName): Promise<void>;
  /** Owner-side objects the projector needs besides its tables (functions); run as the owner at every start. */
  prepare?(db: Db): Promise<void>;
  apply(trx: Transaction<DB>, event: StoredEvent, t: TableName): Promise<void>;
}

export const liveTable: TableName = (logical) => logical;

export function defineProjector(p: Projector): Projector {
  return p;
}

export const handlesEvent = (p: Projector, type: string): boolean => p.handles === '*' || p.handles.includes(type);
