import { sql, type Kysely, type Transaction } from 'kysely';
import type { Db, DB } from '../db/database.ts';

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

/** The transaction-local setting that PostgreSQL row-level security compares each row's `site_id` with. */
export const SITE_SETTING = 'svc.site_id';

/**
 * Runs `fn` in a transaction with the site set, so PostgreSQL row-level security confines every query to that
 * site, whatever the query itself says.
 */
export function withSite<T>(db: Kysely<DB>, siteId: string, fn: (trx: Transaction<DB>) => Promise<T>): Promise<T> {
  return db.transaction().execute(async (trx) => {
    await scopeTo(trx, siteId);
    return fn(trx);
  });
}

/**
 * Runs `fn` in a transaction under the instance-wide setting (`_system`): for work that is not one site's (login by
 * address, token and key lookup, setup, projector catch-up). Row-level security then shows every site's rows, so
 * the queries inside must filter by site themselves.
 */
export function withSystem<T>(db: Kysely<DB>, fn: (trx: Transaction<DB>) => Promise<T>): Promise<T> {
  return withSite(db, SYSTEM_SITE, fn);
}

/** Sets the site for the rest of the transaction (or savepoint) `trx`. */
export async function scopeTo(trx: Transaction<DB>, siteId: string): Promise<void> {
  await sql`select set_config(${SITE_SETTING}, ${siteId}, true)`.execute(trx);
}

/**
 * Instance-level work on any connection: in a transaction of its own under `_system`, or inside the caller's
 * transaction under `_system` until `fn` ends, when the caller's own setting comes back.
 */
export async function asSystem<T>(db: Db, fn: (db: Db) => Promise<T>): Promise<T> {
  if (!db.isTransaction) return withSystem(db as Kysely<DB>, fn);
  const r = await sql<{ prev: string | null }>`
    select current_setting(${SITE_SETTING}, true) as prev, set_config(${SITE_SETTING}, ${SYSTEM_SITE}, true)`.execute(
    db,
  );
  const restore = () => scopeTo(db as Transaction<DB>, r.rows[0]?.prev ?? '');
  let out: T;
  try {
    out = await fn(db);
  } catch (err) {
    // A failed statement aborts the transaction: the restore cannot run then, and the error that matters is fn's.
    await restore().catch(() => undefined);
    throw err;
  }
  await restore();
  return out;
}

/** One site's work on any connection: in a transaction of its own under the site, or in the caller's as it is. */
export function asSite<T>(db: Db, siteId: string, fn: (db: Db) => Promise<T>): Promise<T> {
  return db.isTransaction ? fn(db) : withSite(db as Kysely<DB>, siteId, fn);
}
