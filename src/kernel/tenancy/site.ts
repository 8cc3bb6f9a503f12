import { sql, type Kysely, type Transaction } from 'kysely';
import type { DB } from '../db/database.ts';

/** Site ids: lower-case letters, digits and dashes, 2 to 63 characters. `_system` holds instance streams. */
export const SITE_ID_PATTERN = /^[a-z0-9][a-z0-9-]{1,62}$/;
export const SYSTEM_SITE = '_system';

/** The site named by X-Svc-Site, or else by the first label of a host with at least three labels. */
export function siteFromRequest(
  headers: Record<string, string | string[] | undefined>,
  host: string | undefined,
): string | null {
  const h = headers['x-svc-site'];
  const header = Array.isArray(h) ? h[0] : h;
  if (header) return header.trim().toLowerCase();
  if (!host) return null;
  const name = host.replace(/:\d+$/, '');
  if (/^[\d.]+$/.test(name) || name.startsWith('[')) return null;
  const labels = name.split('.');
  return labels.length >= 3 ? labels[0]!.toLowerCase() : null;
}

/**
 * Runs `fn` in a transaction as the application role with the site set, so PostgreSQL row-level security
 * confines every read-model query to that site, whatever the query itself says.
 */
export function withSite<T>(db: Kysely<DB>, siteId: string, fn: (trx: Transaction<DB>) => Promise<T>): Promise<T> {
  return db.transaction().execute(async (trx) => {
    await sql`select set_config('role', 'svc_app', true), set_config('svc.site_id', ${siteId}, true)`.execute(trx);
    return fn(trx);
  });
}
