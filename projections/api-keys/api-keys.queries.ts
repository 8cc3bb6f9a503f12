import { sql, type Selectable } from 'kysely';
import type { ApiKeysTable } from './api-keys.table.ts';
import { asSystem } from '../../src/kernel/tenancy/site.ts';
import type { Db } from '../../src/kernel/db/database.ts';

/** An API key as its site's admins see it: never the secret nor its hash. */
export interface ApiKeyView {
  id: string;
  name: string;
  prefix: string;
  role: string;
  publishable: boolean;
  allowedOrigins: string[] | null;
  expiresAt: string | null;
  createdAt: string;
  createdBy: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

/** What the authenticator needs to check a presented key. */
export interface ApiKeyCredential {
  keyId: string;
  siteId: string;
  role: string;
  publishable: boolean;
  allowedOrigins: string[];
  secretHash: string;
  expiresAt: Date | null;
  revokedAt: Date | null;
}

/** A row as node-postgres reads it: the table's declaration (api-keys.table.ts). */
type Row = Selectable<ApiKeysTable>;

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);

const view = (r: Row): ApiKeyView => ({
  id: r.key_id,
  name: r.name,
  prefix: r.prefix,
  role: r.role,
  publishable: r.publishable,
  allowedOrigins: r.allowed_origins,
  expiresAt: iso(r.expires_at),
  createdAt: new Date(r.created_at).toISOString(),
  createdBy: r.created_by,
  lastUsedAt: iso(r.last_used_at),
  revokedAt: iso(r.revoked_at),
});

/** The site's keys, newest first; revoked ones only when asked. */
export async function listApiKeys(db: Db, siteId: string, includeRevoked: boolean): Promise<ApiKeyView[]> {
  const r = await sql<Row>`
    select * from api_keys where site_id = ${siteId} ${includeRevoked ? sql`` : sql`and revoked_at is null`}
    order by created_at desc, key_id`.execute(db);
  return r.rows.map(view);
}

export async function findApiKey(db: Db, siteId: string, keyId: string): Promise<ApiKeyView | null> {
  const r = await sql<Row>`select * from api_keys where site_id = ${siteId} and key_id = ${keyId}`.execute(db);
  return r.rows[0] ? view(r.rows[0]) : null;
}

/** Looked up before the request's site is checked, so across sites: the key itself says which site it serves. */
export async function findApiKeyCredential(db: Db, keyId: string): Promise<ApiKeyCredential | null> {
  const r = await asSystem(db, (db) => sql<Row>`select * from api_keys where key_id = ${keyId}`.execute(db));
  const k = r.rows[0];
  if (!k) return null;
  return {
    keyId: k.key_id,
    siteId: k.site_id,
    role: k.role,
    publishable: k.publishable,
    allowedOrigins: k.allowed_origins ?? [],
    secretHash: k.secret_hash,
    expiresAt: k.expires_at ? new Date(k.expires_at) : null,
    revokedAt: k.revoked_at ? new Date(k.revoked_at) : null,
  };
}

/** A publishable key's site and the origins it may be used from. */
export interface PublishableKeyOrigins {
  keyId: string;
  siteId: string;
  allowedOrigins: string[];
}

/**
 * Every live publishable key's origins, across sites (the CORS index answers preflights from them); revoked and
 * expired keys are left out.
 */
export async function publishableKeyOrigins(db: Db, now: Date): Promise<PublishableKeyOrigins[]> {
  const r = await asSystem(db, (db) =>
    sql<Pick<Row, 'key_id' | 'site_id' | 'allowed_origins'>>`
    select key_id, site_id, allowed_origins from api_keys
    where publishable and revoked_at is null and (expires_at is null or expires_at > ${now})`.execute(db),
  );
  return r.rows.map((k) => ({ keyId: k.key_id, siteId: k.site_id, allowedOrigins: k.allowed_origins ?? [] }));
}

/**
 * Records that the key was used at `at`, unless a use less than a minute earlier was already recorded (by this
 * node or another). Operational telemetry written straight to the read model, not an event: a use changes no
 * state, and an event per request would flood the log. A rebuild of this projection starts it empty again.
 */
export async function touchApiKey(db: Db, keyId: string, at: Date): Promise<void> {
  await asSystem(db, (db) =>
    sql`
    update api_keys set last_used_at = ${at}
    where key_id = ${keyId} and (last_used_at is null or last_used_at <= ${new Date(at.getTime() - 60_000)})`.execute(
      db,
    ),
  );
}
