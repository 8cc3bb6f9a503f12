import type { Timestamp } from '../../src/kernel/db/database.ts';

/** One row per erasure asked on a site (DDL in erasures.projector.ts); no personal data. */
export interface ErasuresTable {
  site_id: string;
  erasure_id: string;
  subject_id: string;
  started_at: Timestamp;
  /** Null while the erasure has no proof: running, or cut short. */
  completed_at: Timestamp | null;
}

declare module '../../src/kernel/db/database.ts' {
  interface DB {
    erasures: ErasuresTable;
  }
}
