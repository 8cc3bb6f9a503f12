import type { Generated } from 'kysely';
import type { Json, NullableTimestamp, Timestamp } from '../../src/kernel/db/database.ts';
import type { RevokeReason } from '../../src/contracts/auth/session.events.ts';

/** Login sessions (refresh-token families), instance-wide (DDL in sessions.projector.ts). */
export interface SessionsTable {
  site_id: Generated<string>;
  session_id: string;
  user_id: string;
  amr: Json<string[]>;
  /** Unsealed from the event (personal data): gone from the log's view once the user's key is destroyed. */
  user_agent: string | null;
  ip: string | null;
  generation: Generated<number>;
  created_at: Timestamp;
  last_used_at: Timestamp;
  expires_at: Timestamp;
  revoked_at: NullableTimestamp;
  revoke_reason: RevokeReason | null;
}

declare module '../../src/kernel/db/database.ts' {
  interface DB {
    sessions: SessionsTable;
  }
}
