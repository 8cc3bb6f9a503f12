import type { NullableTimestamp, Timestamp } from '../../src/kernel/db/database.ts';

/** The current consent of each (site, person, type) (DDL in consents.projector.ts); history is in the log. */
export interface ConsentsTable {
  site_id: string;
  user_id: string;
  consent_type: string;
  granted: boolean;
  granted_at: NullableTimestamp;
  withdrawn_at: NullableTimestamp;
  source: string;
  version: string;
  updated_at: Timestamp;
}

/** Who restricted the processing of their data on a site (a row while restricted). */
export interface ProcessingRestrictionsTable {
  site_id: string;
  user_id: string;
  reason: string | null;
  since: Timestamp;
}

declare module '../../src/kernel/db/database.ts' {
  interface DB {
    consents: ConsentsTable;
    processing_restrictions: ProcessingRestrictionsTable;
  }
}
