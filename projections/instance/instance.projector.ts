import { sql } from 'kysely';
import { defineProjector } from '../../src/kernel/es/projector.ts';
import type { SetupEvent } from '../../src/contracts/setup/setup.events.ts';
import type { StudioEvent } from '../../src/contracts/studio/studio.events.ts';

/** Instance state: whether setup is complete, and the private admin path (chosen there, moved by the studio's changes). */
export const instanceProjector = defineProjector<SetupEvent | StudioEvent>({
  name: 'instance',
  version: 1,
  mode: 'inline',
  tables: ['instance_state'],
  handles: ['SetupStarted', 'SetupCompleted', 'AdminPathChanged'],
  createTables: async (db, t) => {
    await sql`
      create table ${sql.table(t('instance_state'))} (
        site_id text primary key default '_system',
        setup_complete boolean not null,
        admin_path text not null,
        admin_user_id text not null,
        first_site_id text not null
      )`.execute(db);
  },
  instanceWide: true,
  apply: async (trx, e) => {
    if (e.type === 'SetupStarted') {
      await trx
        .insertInto('instance_state')
        .values({
          setup_complete: false,
          admin_path: e.data.adminPath,
          admin_user_id: e.data.adminUserId,
          first_site_id: e.data.siteId,
        })
        .onConflict((oc) => oc.doNothing())
        .execute();
    } else if (e.type === 'SetupCompleted') {
      await trx.updateTable('instance_state').set({ setup_complete: true }).execute();
    } else {
      await trx.updateTable('instance_state').set({ admin_path: e.data.to }).execute();
    }
  },
});
