import { sql } from 'kysely';
import { defineProjector } from '../../src/kernel/es/projector.ts';
import { ISSUER_EVENT_TYPES, type IssuerEvent } from '../../src/contracts/issuers/issuer.events.ts';

/** Trusted external issuers per site, written in the append transaction (authentication reads them). */
export const trustedIssuersProjector = defineProjector<IssuerEvent>({
  name: 'trusted-issuers',
  version: 1,
  mode: 'inline',
  tables: ['trusted_issuers'],
  handles: ISSUER_EVENT_TYPES,
  createTables: async (db, t) => {
    await sql`
      create table ${sql.table(t('trusted_issuers'))} (
        site_id text not null,
        issuer_id text not null,
        iss text not null,
        enabled boolean not null,
        config jsonb not null,
        created_at timestamptz not null,
        updated_at timestamptz not null,
        version integer not null,
        primary key (site_id, issuer_id)
      )`.execute(db);
    await sql`create index ${sql.raw(`${t('trusted_issuers')}_iss`)} on ${sql.table(t('trusted_issuers'))} (site_id, iss)`.execute(
      db,
    );
  },
  apply: async (trx, e) => {
    const v = e.streamVersion;
    switch (e.type) {
      case 'TrustedIssuerRegistered': {
        const d = e.data;
        await trx
          .insertInto('trusted_issuers')
          .values({
            site_id: d.siteId,
            issuer_id: d.issuerId,
            iss: d.config.issuer,
            enabled: d.config.enabled,
            config: JSON.stringify(d.config),
            created_at: d.at,
            updated_at: d.at,
            version: v,
          })
          .onConflict((oc) => oc.columns(['site_id', 'issuer_id']).doNothing())
          .execute();
        return;
      }
      case 'TrustedIssuerUpdated': {
        const d = e.data;
        await trx
          .updateTable('trusted_issuers')
          .set({
            iss: d.config.issuer,
            enabled: d.config.enabled,
            config: JSON.stringify(d.config),
            updated_at: d.at,
            version: v,
          })
          .where('site_id', '=', d.siteId)
          .where('issuer_id', '=', d.issuerId)
          .where('version', '<', v)
          .execute();
        return;
      }
      case 'TrustedIssuerRemoved':
        await trx
          .deleteFrom('trusted_issuers')
          .where('site_id', '=', e.data.siteId)
          .where('issuer_id', '=', e.data.issuerId)
          .execute();
        return;
    }
  },
});
