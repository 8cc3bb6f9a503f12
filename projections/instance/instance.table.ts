import type { Generated } from 'kysely';

/** The instance's one row: setup state and the private admin path (DDL in instance.projector.ts). */
export interface InstanceStateTable {
  site_id: Generated<string>;
  setup_complete: boolean;
  admin_path: string;
  admin_user_id: string;
  first_site_id: string;
}

declare module '../../src/kernel/db/database.ts' {
  interface DB {
    instance_state: InstanceStateTable;
  }
}
