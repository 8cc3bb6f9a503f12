import type { Db } from '../../src/kernel/db/database.ts';

const iso = (d: Date | string | null) => (d ? new Date(d).toISOString() : null);

export interface ConsentRow {
  consentType: string;
  granted: boolean;
  grantedAt: string | null;
  withdrawnAt: string | null;
  source: string;
  version: string;
  updatedAt: string;
}

/** A person's current consents on a site (run under the site's setting). */
export async function listConsents(db: Db, siteId: string, userId: string): Promise<ConsentRow[]> {
  const rows = await db
    .selectFrom('consents')
    .selectAll()
    .where('site_id', '=', siteId)
    .where('user_id', '=', userId)
    .execute();
  return rows.map((r) => ({
    consentType: r.consent_type,
    granted: r.granted,
    grantedAt: iso(r.granted_at),
    withdrawnAt: iso(r.withdrawn_at),
    source: r.source,
    version: r.version,
    updatedAt: iso(r.updated_at)!,
  }));
}

/** Of these people, those who restricted the processing of their data on the site. */
export async function restrictedAmong(db: Db, siteId: string, userIds: readonly string[]): Promise<Set<string>> {
  if (userIds.length === 0) return new Set();
  const rows = await db
    .selectFrom('processing_restrictions')
    .select('user_id')
    .where('site_id', '=', siteId)
    .where('user_id', 'in', [...userIds])
    .execute();
  return new Set(rows.map((r) => r.user_id));
}
