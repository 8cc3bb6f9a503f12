import { sql } from 'kysely';
import { defineProjector } from '../../src/kernel/es/projector.ts';
import type { ErasureEvent } from '../../src/contracts/erasure/erasure.events.ts';

/** Erasures per site, started and completed, written in the append transaction (lists, incomplete ones). */
export const erasuresProjector = defineProjector<ErasureEvent>({
  name: 'erasures',
  version: 1,
  mode: 'inline',
  tables: ['erasures'],
  handles: ['ErasureStarted', 'ErasureCompleted'],
  createTables: async (db, t) => {
    const table = t('erasures');
    await sql`
      create table ${sql.table(table)} (
        site_id text not null,
        erasure_id text not null,
        subject_id text not null,
        started_at timestamptz not null,
        completed_at timestamptz,
        primary key (site_id, erasure_id)
      )`.execute(db);
    await sql`create index ${sql.raw(`${table}_recent`)} on ${sql.table(table)} (site_id, started_at desc, erasure_id)`.execute(
      db,
    );
    await sql`create index ${sql.raw(`${table}_open`)} on ${sql.table(table)} (subject_id)
              where completed_at is null`.execute(db);
  },
  apply: async (trx, e) => {
    switch (e.type) {
      case 'ErasureStarted':
        await trx
          .insertInto('erasures')
          .values({
            site_id: e.siteId,
            erasure_id: e.data.erasureId,
            subject_id: e.data.subjectId,
            started_at: e.data.at,
          })
          .onConflict((oc) => oc.columns(['site_id', 'erasure_id']).doNothing())
          .execute();
        return;
      case 'ErasureCompleted':
        await trx
          .updateTable('erasures')
          .set({ completed_at: e.data.at })
          .where('site_id', '=', e.siteId)
          .where('erasure_id', '=', e.data.erasureId)
          .execute();
        return;
    }
  },
});
