import type { Db } from '../../src/kernel/db/database.ts';
import type { GitAuthMethod, GitProvider, SyncConfig } from '../../src/features/git/git.events.ts';

/** An integration as the list shows it (the receiver's address is the slice's to add). */
export interface GitIntegrationRow {
  id: string;
  provider: GitProvider;
  repository: string;
  baseUrl: string | null;
  authMethod: GitAuthMethod;
  hasToken: boolean;
  syncConfig: SyncConfig;
  createdAt: string;
  updatedAt: string;
}

const iso = (d: Date | string) => new Date(d).toISOString();

/** The site's integrations, oldest first. */
export async function listIntegrations(db: Db, siteId: string): Promise<GitIntegrationRow[]> {
  const rows = await db
    .selectFrom('git_integrations')
    .selectAll()
    .where('site_id', '=', siteId)
    .orderBy('created_at')
    .orderBy('integration_id')
    .execute();
  return rows.map((r) => ({
    id: r.integration_id,
    provider: r.provider as GitProvider,
    repository: r.repository,
    baseUrl: r.base_url,
    authMethod: r.auth_method as GitAuthMethod,
    hasToken: r.has_token,
    syncConfig: r.sync_config,
    createdAt: iso(r.created_at),
    updatedAt: iso(r.updated_at),
  }));
}

/** A recorded delivery. */
export interface GitDeliveryRow {
  provider: GitProvider;
  deliveryId: string;
  event: string;
  receivedAt: string;
}

/** An integration's recorded deliveries, newest first, and how many there are. */
export async function listDeliveries(
  db: Db,
  siteId: string,
  integrationId: string,
  page: { limit: number; offset: number },
): Promise<{ rows: GitDeliveryRow[]; total: number }> {
  const base = db
    .selectFrom('git_deliveries')
    .where('site_id', '=', siteId)
    .where('integration_id', '=', integrationId);
  const [rows, count] = await Promise.all([
    base.selectAll().orderBy('seq', 'desc').limit(page.limit).offset(page.offset).execute(),
    base.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return {
    rows: rows.map((r) => ({
      provider: r.provider as GitProvider,
      deliveryId: r.delivery_id,
      event: r.event,
      receivedAt: iso(r.received_at),
    })),
    total: Number(count.n),
  };
}
