import { sql, type Selectable } from 'kysely';
import { asSite } from '../../src/kernel/tenancy/site.ts';
import type { Db, DB } from '../../src/kernel/db/database.ts';
import type { TrustedIssuerConfig } from '../../src/contracts/issuers/issuer.events.ts';

/** A trusted issuer as the admin API answers it. */
export interface TrustedIssuerRecord extends TrustedIssuerConfig {
  id: string;
  createdAt: string;
  updatedAt: string;
  version: number;
}

type Row = Pick<Selectable<DB['trusted_issuers']>, 'issuer_id' | 'config' | 'created_at' | 'updated_at' | 'version'>;

const toRecord = (r: Row): TrustedIssuerRecord => ({
  id: r.issuer_id,
  ...r.config,
  createdAt: new Date(r.created_at).toISOString(),
  updatedAt: new Date(r.updated_at).toISOString(),
  version: r.version,
});

export async function listIssuers(db: Db, siteId: string): Promise<TrustedIssuerRecord[]> {
  const r = await sql<Row>`
    select issuer_id, config, created_at, updated_at, version from trusted_issuers
    where site_id = ${siteId} order by created_at, issuer_id`.execute(db);
  return r.rows.map(toRecord);
}

export async function findIssuer(db: Db, siteId: string, issuerId: string): Promise<TrustedIssuerRecord | null> {
  const r = await sql<Row>`
    select issuer_id, config, created_at, updated_at, version from trusted_issuers
    where site_id = ${siteId} and issuer_id = ${issuerId}`.execute(db);
  return r.rows[0] ? toRecord(r.rows[0]) : null;
}

/** The site's enabled issuers (what authentication matches a token's `iss` against). */
export async function enabledIssuers(db: Db, siteId: string): Promise<TrustedIssuerRecord[]> {
  // Asked while authenticating, before any site transaction exists.
  const r = await asSite(db, siteId, (db) =>
    sql<Row>`
    select issuer_id, config, created_at, updated_at, version from trusted_issuers
    where site_id = ${siteId} and enabled`.execute(db),
  );
  return r.rows.map(toRecord);
}
