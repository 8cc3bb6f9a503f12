import type { Defaulted, Json, Timestamp } from '../../src/kernel/db/database.ts';
import type { SiteSettings } from '../../src/contracts/sites/site.events.ts';

/** One row per site (DDL in sites.projector.ts). */
export interface SitesTable {
  site_id: string;
  name: string;
  settings: Defaulted<Json<SiteSettings>>;
  created_by: string;
  created_at: Timestamp;
  updated_at: Timestamp;
  version: number;
}

declare module '../../src/kernel/db/database.ts' {
  interface DB {
    sites: SitesTable;
  }
}
