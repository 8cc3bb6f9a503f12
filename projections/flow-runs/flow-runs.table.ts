import type { Json, NullableJson, NullableTimestamp, Timestamp } from '../../src/kernel/db/database.ts';

/** One step of a run as the history shows it: each try, with its input, output or error and its duration. */
export interface RunStepRow {
  nodeId: string;
  operation: string;
  status: 'succeeded' | 'failed' | 'retrying';
  edge: 'resolve' | 'reject' | null;
  attempt: number;
  input: unknown;
  output: unknown;
  error: { code: string; message: string; extensions?: Record<string, unknown> } | null;
  retryAt: string | null;
  startedAt: string;
  finishedAt: string;
  durationMs: number;
}

/** One row per run of a flow (DDL in flow-runs.projector.ts). */
export interface FlowRunsTable {
  site_id: string;
  run_id: string;
  flow_id: string;
  status: string;
  trigger: string;
  input: Json<unknown>;
  depth: number;
  steps: Json<RunStepRow[]>;
  error: NullableJson<{ code: string; message: string }>;
  failed_node: string | null;
  retry_of: string | null;
  started_at: Timestamp;
  finished_at: NullableTimestamp;
  /** When the worker should look at the run again (due now, a sleep's end, a retry); null once it ended. */
  next_at: NullableTimestamp;
  version: number;
}

declare module '../../src/kernel/db/database.ts' {
  interface DB {
    flow_runs: FlowRunsTable;
  }
}
