import { sql, type Kysely, type Transaction } from 'kysely';
import type { Db, DB } from '../db/database.ts';

/** Site ids: lower-case letters, digits and dashes, 2 to 63 characters. `_system` holds instance streams. */
export const SITE_ID_PATTERN = /^[a-z0-9][a-z0-9-]{1,62}$/;
export const SYSTEM_SITE = '_system';

/**
 * A preview site's id: its base site's id, `--pr-` and the pull request's number, and `-<generation>` from the
 * second preview of the same pull request on (a torn-down site's id is never given again). Reserved: no site is
 * created with such an id by hand. Its members are the base site's, with their roles there (`roleOn`).
 */
const PREVIEW_SITE_ID = /^([a-z0-9][a-z0-9-]*?)--pr-(\d{1,9})(?:-(\d{1,4}))?$/;

/** The base site of a preview site's id, or null for any other id. */
export const previewBaseOf = (siteId: string): string | null => {
  const m = PREVIEW_SITE_ID.exec(siteId);
  return m && SITE_ID_PATTERN.test(siteId) ? m[1]! : null;
};

/** The id of a pull request's preview site, or null when it would be longer than a site id may be. */
export function previewSiteId(base: string, pullRequest: number, generation: number): string | null {
  const id = `${base}--pr-${String(pullRequest)}${generation > 1 ? `-${String(generation)}` : ''}`;
  return SITE_ID_PATTERN.test(id) && previewBaseOf(id) === base ? id : null;
}

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

/** Per serving database: its site-scoped readers (PostgreSQL; see adapters/db/site-scoped.ts). */
const readers = new WeakMap<object, (site: string) => Kysely<DB>>();

/** Lets `readAsSite`, `asSite` and `asSystem` on `db` send the site with each statement (one round trip). */
export function registerSiteReaders(db: Kysely<DB>, reader: (site: string) => Kysely<DB>): void {
  const readerOf = (site: string) => {
    const k = reader(site);
    // A reader reaches the other sites' readers too (a site's read that looks up an account under `_system`).
    if (!readers.has(k)) readers.set(k, readerOf);
    return k;
  };
  readers.set(db, readerOf);
}

/**
 * Reads of one site: each statement runs under the site in a transaction of its own, in one round trip where the
 * database has site-scoped readers (PostgreSQL and PGlite, adapters/db/site-scoped.ts), else in one transaction.
 * For reads and single-statement writes; statements that must commit together use `withSite`. Inside a transaction,
 * `fn` runs in it as it is.
 */
export function readAsSite<T>(db: Db, siteId: string, fn: (db: Db) => Promise<T>): Promise<T> {
  if (db.isTransaction) return fn(db);
  const reader = readers.get(db);
  return reader ? fn(reader(siteId)) : withSite(db as Kysely<DB>, siteId, fn);
}

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
 * Instance-level work on any connection: under `_system` as `readAsSite` runs a site's (each statement its own
 * transaction), or inside the caller's transaction under `_system` until `fn` ends, when the caller's own setting
 * comes back.
 */
export async function asSystem<T>(db: Db, fn: (db: Db) => Promise<T>): Promise<T> {
  if (!db.isTransaction) return readAsSite(db, SYSTEM_SITE, fn);
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

/** One site's work on any connection: as `readAsSite` outside a transaction, or in the caller's as it is. */
export const asSite = readAsSite;
