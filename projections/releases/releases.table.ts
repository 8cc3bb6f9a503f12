import type { Generated } from 'kysely';
import type { Json, NullableTimestamp, Timestamp } from '../../src/kernel/db/database.ts';
import type { ReleaseState, ReleaseStatus } from '../../src/contracts/releases/release.events.ts';

/** One row per release, its folded state as JSONB beside the columns the scheduler queries (DDL in releases.projector.ts). */
export interface ReleasesTable {
  site_id: string;
  release_id: string;
  state: Json<ReleaseState>;
  status: ReleaseStatus;
  publish_at: NullableTimestamp;
  /** A best-effort publish is under way. */
  publishing: Generated<boolean>;
  created_at: Timestamp;
  updated_at: Timestamp;
  deleted_at: NullableTimestamp;
}

declare module '../../src/kernel/db/database.ts' {
  interface DB {
    releases: ReleasesTable;
  }
}
