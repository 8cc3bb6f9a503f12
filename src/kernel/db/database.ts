import type { ColumnType, Generated, Kysely, Transaction } from 'kysely';

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

export interface InstanceSettingsTable {
  key: string;
  value: unknown;
}

/** Kernel tables. Read models add theirs with `db.withTables<…>()` in their own folder. */
export interface DB {
  events: EventsTable;
  streams: StreamsTable;
  projection_state: ProjectionStateTable;
  instance_settings: InstanceSettingsTable;
}

export type Db = Kysely<DB> | Transaction<DB>;
