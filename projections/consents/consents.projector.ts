import { sql } from 'kysely';
import { defineProjector } from '../../src/kernel/es/projector.ts';
import {
  CONSENT_EVENT_TYPES,
  RESTRICTION_EVENT_TYPES,
  type ConsentEvent,
  type RestrictionEvent,
} from '../../src/contracts/consents/consent.events.ts';
import './consents.table.ts';

/** Current consents and restrictions per site and person, in the append's transaction. */
export const consentsProjector = defineProjector<ConsentEvent | RestrictionEvent>({
  name: 'consents',
  version: 1,
  mode: 'inline',
  tables: ['consents', 'processing_restrictions'],
  handles: [...CONSENT_EVENT_TYPES, ...RESTRICTION_EVENT_TYPES],
  createTables: async (db, t) => {
    await sql`
      create table ${sql.table(t('consents'))} (
        site_id text not null,
        user_id text not null,
        consent_type text not null,
        granted boolean not null,
        granted_at timestamptz,
        withdrawn_at timestamptz,
        source text not null,
        version text not null,
        updated_at timestamptz not null,
        primary key (site_id, user_id, consent_type)
      )`.execute(db);
    await sql`
      create table ${sql.table(t('processing_restrictions'))} (
        site_id text not null,
        user_id text not null,
        reason text,
        since timestamptz not null,
        primary key (site_id, user_id)
      )`.execute(db);
  },
  apply: async (trx, e) => {
    const site = e.siteId;
    switch (e.type) {
      case 'consent_granted':
      case 'consent_withdrawn': {
        const d = e.data;
        const granted = e.type === 'consent_granted';
        await trx
          .insertInto('consents')
          .values({
            site_id: site,
            user_id: d.userId,
            consent_type: d.consentType,
            granted,
            granted_at: granted ? d.at : null,
            withdrawn_at: granted ? null : d.at,
            source: d.source,
            version: d.version,
            updated_at: d.at,
          })
          .onConflict((oc) =>
            oc.columns(['site_id', 'user_id', 'consent_type']).doUpdateSet((eb) => ({
              granted,
              // A withdrawal keeps the time it had been granted.
              granted_at: granted ? d.at : eb.ref('consents.granted_at'),
              withdrawn_at: granted ? null : d.at,
              source: d.source,
              version: d.version,
              updated_at: d.at,
            })),
          )
          .execute();
        return;
      }
      case 'ProcessingRestricted':
        await trx
          .insertInto('processing_restrictions')
          .values({ site_id: site, user_id: e.data.userId, reason: e.data.reason, since: e.data.at })
          .onConflict((oc) => oc.columns(['site_id', 'user_id']).doUpdateSet({ reason: e.data.reason }))
          .execute();
        return;
      case 'ProcessingRestrictionLifted':
        await trx
          .deleteFrom('processing_restrictions')
          .where('site_id', '=', site)
          .where('user_id', '=', e.data.userId)
          .execute();
        return;
    }
  },
});
