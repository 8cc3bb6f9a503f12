import { sql } from 'kysely';
import { defineProjector } from '../../src/kernel/es/projector.ts';
import { ISSUER_EVENT_TYPES, type IssuerEvent } from '../../src/features/issuers/issuer.events.ts';

/** Trusted external issuers per site, written in the append transaction (authentication reads them). */
export const trustedIssuersProjector = defineProjector({
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
  apply: async (trx, stored, t) => {
    const e = stored as unknown as IssuerEvent;
    const table = sql.table(t('trusted_issuers'));
    const v = stored.streamVersion;
    switch (e.type) {
      case 'TrustedIssuerRegistered': {
        const d = e.data;
        await sql`
          insert into ${table} (site_id, issuer_id, iss, enabled, config, created_at, updated_at, version)
          values (${d.siteId}, ${d.issuerId}, ${d.config.issuer}, ${d.config.enabled}, ${JSON.stringify(d.config)}::jsonb,
                  ${d.at}, ${d.at}, ${v})
          on conflict (site_id, issuer_id) do nothing`.execute(trx);
        return;
      }
      case 'TrustedIssuerUpdated': {
        const d = e.data;
        await sql`
          update ${table} set iss = ${d.config.issuer}, enabled = ${d.config.enabled},
            config = ${JSON.stringify(d.config)}::jsonb, updated_at = ${d.at}, version = ${v}
          where site_id = ${d.siteId} and issuer_id = ${d.issuerId} and version < ${v}`.execute(trx);
        return;
      }
      case 'TrustedIssuerRemoved':
        await sql`delete from ${table} where site_id = ${e.data.siteId} and issuer_id = ${e.data.issuerId}`.execute(
          trx,
        );
        return;
    }
  },
});
