import {
  sql,
  type ColumnType,
  type Expression,
  type Generated,
  type Kysely,
  type RawBuilder,
  type Transaction,
} from 'kysely';
import type pg from 'pg';
import type { LockSession } from './leader-lock.ts';

export interface EventsTable {
  global_position: Generated<string>;
  transaction_id: Generated<string>;
  site_id: string;
  stream_id: string;
  stream_version: number;
  event_id: string;
  type: string;
  schema_version: number;
  data: unknown;
  metadata: unknown;
  created_at: ColumnType<Date, Date | string, never>;
}

export interface StreamsTable {
  site_id: string;
  stream_id: string;
  version: number;
}

export interface ProjectionStateTable {
  name: string;
  version: number;
  /** `<transaction_id>:<global_position>` of the last applied event (async projectors). */
  checkpoint: string | null;
  status: string;
  updated_at: ColumnType<Date, Date | string, Date | string>;
}

/** Where a reactor (process manager) stands in the log, and the failures of the event it is stuck on. */
export interface ReactorStateTable {
  name: string;
  checkpoint: string | null;
  failures: Generated<number>;
  last_error: string | null;
  retry_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  updated_at: ColumnType<Date, Date | string | undefined, Date | string>;
}

/** An event a reactor gave up on after its retries: kept for an operator, the reactor moved on. */
export interface ReactorParkedTable {
  id: Generated<string>;
  reactor: string;
  site_id: string;
  event_id: string;
  type: string;
  stream_id: string;
  checkpoint: string;
  error: string;
  parked_at: ColumnType<Date, Date | string | undefined, never>;
}

export interface InstanceSettingsTable {
  key: string;
  value: unknown;
}

/**
 * The database as kysely types it: the kernel's tables here, and each read model's merged in by its
 * `projections/<model>/<model>.table.ts` (`declare module` of this file), so the kernel imports no read model.
 */
export interface DB {
  events: EventsTable;
  streams: StreamsTable;
  projection_state: ProjectionStateTable;
  reactor_state: ReactorStateTable;
  reactor_parked: ReactorParkedTable;
  instance_settings: InstanceSettingsTable;
}

export type Db = Kysely<DB> | Transaction<DB>;

/** timestamptz: node-postgres (PGlite's adapter too) reads a Date; events write ISO strings. */
export type Timestamp = ColumnType<Date, Date | string, Date | string>;
export type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;

/**
 * jsonb: read parsed; written as JSON text (node-postgres would send an array as a PostgreSQL array) or as a jsonb
 * expression (`excluded.data`, a merge).
 */
export type Json<T> = ColumnType<T, string | Expression<T>, string | Expression<T>>;
export type NullableJson<T> = ColumnType<
  T | null,
  string | Expression<T | null> | null | undefined,
  string | Expression<T | null> | null
>;

/** int8 (bigint, bigserial): read as text (create-db.ts keeps it exact), written from a number. */
export type Int8 = ColumnType<string, number | string | bigint, number | string | bigint>;

/** A column of one of the types above with a DDL default: optional on insert (kysely's `Generated` for the others). */
export type Defaulted<C> =
  C extends ColumnType<infer S, infer I, infer U> ? ColumnType<S, I | undefined, U> : ColumnType<C, C | undefined, C>;

/** `column || patch`: jsonb's shallow merge, which the query builder has no method for. */
export function jsonbMerge<T>(column: Expression<T>, patch: object): RawBuilder<T> {
  return sql<T>`${column} || ${JSON.stringify(patch)}::jsonb`;
}

/** The database handle of a process (opened by `adapters/db/create-db.ts`): PGlite or PostgreSQL. */
export interface Database {
  /** The serving connection: requests, appends, projectors. */
  db: Kysely<DB>;
  /**
   * The owner's connection: migrations and DDL (projection rebuilds). Instance-wide by default (`svc.site_id` is
   * `_system` for its sessions). The same as `db` when one role both owns and serves.
   */
  owner: Kysely<DB>;
  /** Whether a serving role distinct from the owner handles requests, so row-level security is a wall. */
  separateRoles: boolean;
  /** That serving role's name, which the owner grants every table to (null when one role owns and serves). */
  servingRole: string | null;
  kind: 'pglite' | 'postgres';
  /** The serving pool under `db` (the version channel and the listening connection copy its settings). */
  pool: pg.Pool;
  /** The leader locks' own connection, outside `pool` (PostgreSQL only; PGlite is one process). */
  locks: LockSession | null;
  close(): Promise<void>;
}
