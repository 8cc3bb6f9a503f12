import type { NullableJson, NullableTimestamp, Timestamp } from '../../src/kernel/db/database.ts';

/** API keys per site, only the hash of each secret (DDL in api-keys.projector.ts). */
export interface ApiKeysTable {
  site_id: string;
  key_id: string;
  name: string;
  prefix: string;
  role: string;
  publishable: boolean;
  allowed_origins: NullableJson<string[]>;
  secret_hash: string;
  expires_at: NullableTimestamp;
  created_by: string;
  created_at: Timestamp;
  revoked_at: NullableTimestamp;
  /** Written by the authenticator, not by the projector. */
  last_used_at: NullableTimestamp;
}

declare module '../../src/kernel/db/database.ts' {
  interface DB {
    api_keys: ApiKeysTable;
  }
}
