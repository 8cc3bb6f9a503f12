import { sql } from 'kysely';
import { defineProjector } from '../../src/kernel/es/projector.ts';
import { PRIVACY_EVENT_TYPES, type PrivacyEvent } from '../../src/contracts/privacy/privacy.events.ts';

/** A site's subject-access exports, kept and expired, written in the append transaction (for retention). */
export const sarExportsProjector = defineProjector<PrivacyEvent>({
  name: 'sar-exports',
  version: 1,
  mode: 'inline',
  tables: ['sar_exports'],
  handles: [...PRIVACY_EVENT_TYPES],
  createTables: async (db, t) => {
    const table = t('sar_exports');
    await sql`
      create table ${sql.table(table)} (
        site_id text not null,
        sar_id text not null,
        subject_id text not null,
        object_key text not null,
        exported_at timestamptz not null,
        expired_at timestamptz,
        primary key (site_id, sar_id)
      )`.execute(db);
    await sql`create index ${sql.raw(`${table}_kept`)} on ${sql.table(table)} (site_id, exported_at)
              where expired_at is null`.execute(db);
    await sql`create index ${sql.raw(`${table}_subject`)} on ${sql.table(table)} (subject_id)`.execute(db);
  },
  apply: async (trx, e) => {
    switch (e.type) {
      case 'SubjectAccessExported':
        await trx
          .insertInto('sar_exports')
          .values({
            site_id: e.siteId,
            sar_id: e.data.sarId,
            subject_id: e.data.subjectId,
            object_key: e.data.objectKey,
            exported_at: e.data.at,
          })
          .onConflict((oc) => oc.columns(['site_id', 'sar_id']).doNothing())
          .execute();
        return;
      case 'SubjectAccessExportDeleted':
        await trx
          .updateTable('sar_exports')
          .set({ expired_at: e.data.at })
          .where('site_id', '=', e.siteId)
          .where('sar_id', '=', e.data.sarId)
          .execute();
        return;
    }
  },
});
