import { sql } from 'kysely';
import { asSystem } from '../../src/kernel/tenancy/site.ts';
import type { Db } from '../../src/kernel/db/database.ts';

export async function instanceState(db: Db): Promise<{ setupComplete: boolean; adminPath: string | null }> {
  const r = await asSystem(db, (db) =>
    sql<{
      setup_complete: boolean;
      admin_path: string;
    }>`select setup_complete, admin_path from instance_state`.execute(db),
  );
  return { setupComplete: r.rows[0]?.setup_complete ?? false, adminPath: r.rows[0]?.admin_path ?? null };
}
