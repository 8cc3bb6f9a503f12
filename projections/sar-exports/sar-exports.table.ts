import type { Timestamp } from '../../src/kernel/db/database.ts';

/** One row per subject-access export of a site (DDL in sar-exports.projector.ts); no personal data. */
export interface SarExportsTable {
  site_id: string;
  sar_id: string;
  subject_id: string;
  object_key: string;
  exported_at: Timestamp;
  /** When its file was deleted (retention or erasure); null while it is kept. */
  expired_at: Timestamp | null;
}

declare module '../../src/kernel/db/database.ts' {
  interface DB {
    sar_exports: SarExportsTable;
  }
}
