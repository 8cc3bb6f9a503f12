import type { NullableJson, Timestamp } from '../../src/kernel/db/database.ts';
import type { LayoutConfig, PageStatus } from '../../src/contracts/pages/page.events.ts';

/** One row per live page (DDL in pages.projector.ts). */
export interface PagesTable {
  site_id: string;
  id: string;
  slug: string;
  title: string;
  status: PageStatus;
  layout_config: NullableJson<LayoutConfig>;
  version: number;
  created_at: Timestamp;
  created_by: string;
  updated_at: Timestamp;
  updated_by: string;
}

declare module '../../src/kernel/db/database.ts' {
  interface DB {
    pages: PagesTable;
  }
}
