import type { Int8, Json, Timestamp } from '../../src/kernel/db/database.ts';
import type { SyncConfig } from '../../src/features/git/git.events.ts';

/** One row per live git integration of a site, without its secrets (DDL in git-integrations.projector.ts). */
export interface GitIntegrationsTable {
  site_id: string;
  integration_id: string;
  provider: string;
  repository: string;
  base_url: string | null;
  auth_method: string;
  has_token: boolean;
  sync_config: Json<SyncConfig>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** One row per verified webhook delivery (provider, delivery id), for the integration's delivery log. */
export interface GitDeliveriesTable {
  site_id: string;
  integration_id: string;
  delivery_key: string;
  provider: string;
  delivery_id: string;
  event: string;
  received_at: Timestamp;
  seq: Int8;
}

declare module '../../src/kernel/db/database.ts' {
  interface DB {
    git_integrations: GitIntegrationsTable;
    git_deliveries: GitDeliveriesTable;
  }
}
