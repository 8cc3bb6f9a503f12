import type { Db } from '../../src/kernel/db/database.ts';
import type { SuppressionSource } from '../../src/contracts/email/email.events.ts';

/** A suppression as the read model holds it: the address still sealed. */
export interface SuppressionRow {
  emailHash: string;
  emailSealed: string;
  source: SuppressionSource;
  reason: string | null;
  suppressedAt: string;
}

/** A page of the site's suppressed addresses, newest first, and how many there are. */
export async function listSuppressions(
  db: Db,
  siteId: string,
  page: { limit: number; offset: number },
): Promise<{ rows: SuppressionRow[]; total: number }> {
  const mine = db.selectFrom('email_suppressions').where('site_id', '=', siteId);
  const rows = await mine
    .select(['email_hash', 'email_sealed', 'source', 'reason', 'suppressed_at'])
    .orderBy('suppressed_at', 'desc')
    .orderBy('email_hash')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  const count = await mine.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow();
  return {
    total: Number(count.n),
    rows: rows.map((r) => ({
      emailHash: r.email_hash,
      emailSealed: r.email_sealed,
      source: r.source,
      reason: r.reason,
      suppressedAt: new Date(r.suppressed_at).toISOString(),
    })),
  };
}
