import type { Json, Timestamp } from '../../src/kernel/db/database.ts';
import type { PresetQuery } from '../../src/contracts/presets/presets.events.ts';

/** One row per view preset of a site, as its events and the schema's changes left it (DDL in presets.projector.ts). */
export interface PresetsTable {
  site_id: string;
  preset_id: string;
  collection: string;
  user_id: string | null;
  role_id: string | null;
  bookmark: string | null;
  layout: string | null;
  layout_options: Json<Record<string, unknown> | null>;
  query: Json<PresetQuery>;
  /** A field its filter or layout options name was deleted, or its collection was: shown, flagged, never broken. */
  stale: boolean;
  stale_fields: Json<string[]>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

declare module '../../src/kernel/db/database.ts' {
  interface DB {
    presets: PresetsTable;
  }
}
