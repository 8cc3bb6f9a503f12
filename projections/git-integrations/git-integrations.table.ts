import type { Int8, Json, NullableJson, Timestamp } from '../../src/kernel/db/database.ts';
import type { GitHubApp, SyncConfig } from '../../src/contracts/git/git.events.ts';

/** One row per live git integration of a site, without its secrets (each table's DDL in its projector). */
export interface GitIntegrationsTable {
  site_id: string;
  integration_id: string;
  provider: string;
  repository: string;
  base_url: string | null;
  auth_method: string;
  has_token: boolean;
  /** The GitHub App it acts as (ids only), or null. */
  app: NullableJson<GitHubApp>;
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

/** One row per pull request (merge request) of an integration, as the newest delivery showed it. */
export interface GitPullRequestsTable {
  site_id: string;
  integration_id: string;
  number: number;
  title: string;
  state: string;
  action: string;
  head_ref: string;
  head_sha: string;
  base_ref: string;
  url: string | null;
  updated_at: Timestamp;
  seq: Int8;
}

/** One row per CI run (check run, commit status, pipeline) of an integration, in its newest state. */
export interface GitCiRunsTable {
  site_id: string;
  integration_id: string;
  source: string;
  run_id: string;
  name: string;
  sha: string;
  ref: string | null;
  state: string;
  url: string | null;
  updated_at: Timestamp;
  seq: Int8;
}

/** What an integration's repository declares of each item, as of the last sync that changed it. */
export interface GitContentIntentsTable {
  site_id: string;
  integration_id: string;
  collection: string;
  item_id: string;
  path: string;
  sha: string;
  intent_values: Json<Record<string, unknown>>;
  updated_at: Timestamp;
}

/** Which commit (of which integration and file) last set each field of an item through a gitops sync. */
export interface GitProvenanceTable {
  site_id: string;
  collection: string;
  item_id: string;
  field: string;
  integration_id: string;
  sha: string;
  path: string;
  set_at: Timestamp;
}

/** One row per pull request's newest preview site (kept after its integration's deletion, for the teardown). */
export interface GitPreviewsTable {
  site_id: string;
  integration_id: string;
  number: number;
  preview_site_id: string;
  state: string;
  head_sha: string | null;
  copied: number;
  intents: Json<{ applied: number; refused: number; error: string | null }> | null;
  reason: string | null;
  started_at: Timestamp;
  updated_at: Timestamp;
}

declare module '../../src/kernel/db/database.ts' {
  interface DB {
    git_integrations: GitIntegrationsTable;
    git_deliveries: GitDeliveriesTable;
    git_pull_requests: GitPullRequestsTable;
    git_ci_runs: GitCiRunsTable;
    git_content_intents: GitContentIntentsTable;
    git_provenance: GitProvenanceTable;
    git_previews: GitPreviewsTable;
  }
}
