import type { Json, NullableTimestamp, Timestamp } from '../../src/kernel/db/database.ts';
import type { FlowGraph } from '../../src/contracts/flows/flow.events.ts';

/** One row per live flow of a site, its whole definition included (DDL in flows.projector.ts). */
export interface FlowsTable {
  site_id: string;
  flow_id: string;
  name: string;
  description: string | null;
  status: string;
  trigger: string;
  trigger_options: Json<Record<string, unknown>>;
  graph: Json<FlowGraph>;
  run_as: string;
  options: Json<Record<string, unknown>>;
  next_run_at: NullableTimestamp;
  has_token: boolean;
  /** The flow stream's version after the last event applied. */
  version: number;
  created_at: Timestamp;
  updated_at: Timestamp;
}

declare module '../../src/kernel/db/database.ts' {
  interface DB {
    flows: FlowsTable;
  }
}
