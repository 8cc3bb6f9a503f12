import type { Generated } from 'kysely';
import type { Defaulted, Json, Timestamp } from '../../src/kernel/db/database.ts';

/** Users, instance-wide and unsealed for lookups (DDL in users.projector.ts). */
export interface UsersTable {
  site_id: Generated<string>;
  user_id: string;
  email: string | null;
  password_hash: string | null;
  first_name: string | null;
  last_name: string | null;
  instance_admin: boolean;
  status: Generated<'active' | 'unverified' | 'invited'>;
  token_version: Generated<number>;
  password_version: Generated<number>;
  preferences: Defaulted<Json<Record<string, unknown>>>;
  created_at: Timestamp;
}

/** A user's role on each site it is a member of. */
export interface UserSitesTable {
  site_id: string;
  user_id: string;
  role: string;
}

declare module '../../src/kernel/db/database.ts' {
  interface DB {
    users: UsersTable;
    user_sites: UserSitesTable;
  }
}
