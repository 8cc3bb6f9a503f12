import { sql } from 'kysely';
import { defineProjector } from '../../src/kernel/es/projector.ts';
import { SUPPRESSION_EVENT_TYPES, type SuppressionEvent } from '../../src/contracts/email/email.events.ts';

/** A site's suppressed addresses (sealed, with their hashes), written in the append transaction. */
export const emailSuppressionsProjector = defineProjector<SuppressionEvent>({
  name: 'email-suppressions',
  version: 1,
  mode: 'inline',
  tables: ['email_suppressions'],
  handles: [...SUPPRESSION_EVENT_TYPES],
  createTables: async (db, t) => {
    const table = t('email_suppressions');
    await sql`
      create table ${sql.table(table)} (
        site_id text not null,
        email_hash text not null,
        email_sealed text not null,
        source text not null,
        reason text,
        suppressed_at timestamptz not null,
        primary key (site_id, email_hash)
      )`.execute(db);
    await sql`create index ${sql.raw(`${table}_recent`)} on ${sql.table(table)}
              (site_id, suppressed_at desc, email_hash)`.execute(db);
  },
  apply: async (trx, e) => {
    const key = { site_id: e.siteId, email_hash: e.data.emailHash };
    switch (e.type) {
      case 'email_suppressed':
      case 'email_unsubscribed': {
        const row = {
          email_sealed: e.data.email,
          source: e.type === 'email_suppressed' ? ('admin' as const) : ('unsubscribe' as const),
          reason: e.data.reason,
          suppressed_at: e.data.at,
        };
        await trx
          .insertInto('email_suppressions')
          .values({ ...key, ...row })
          .onConflict((oc) => oc.columns(['site_id', 'email_hash']).doUpdateSet(row))
          .execute();
        return;
      }
      case 'email_unsuppressed':
        await trx
          .deleteFrom('email_suppressions')
          .where('site_id', '=', key.site_id)
          .where('email_hash', '=', key.email_hash)
          .execute();
        return;
    }
  },
});
