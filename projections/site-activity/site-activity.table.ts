import type { Int8, Timestamp } from '../../src/kernel/db/database.ts';

/** Per-site event count and last change (DDL in site-activity.projector.ts). */
export interface SiteActivityTable {
  site_id: string;
  event_count: Int8;
  last_event_at: Timestamp;
}

declare module '../../src/kernel/db/database.ts' {
  interface DB {
    site_activity: SiteActivityTable;
  }
}
