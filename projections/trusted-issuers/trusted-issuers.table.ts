import type { Json, Timestamp } from '../../src/kernel/db/database.ts';
import type { TrustedIssuerConfig } from '../../src/contracts/issuers/issuer.events.ts';

/** Trusted external issuers per site, `iss` and `enabled` beside the whole record (DDL in trusted-issuers.projector.ts). */
export interface TrustedIssuersTable {
  site_id: string;
  issuer_id: string;
  iss: string;
  enabled: boolean;
  config: Json<TrustedIssuerConfig>;
  created_at: Timestamp;
  updated_at: Timestamp;
  version: number;
}

declare module '../../src/kernel/db/database.ts' {
  interface DB {
    trusted_issuers: TrustedIssuersTable;
  }
}
