import type { DomainEvent } from '../../kernel/es/event.ts';
import type { SiteRetentionKindName } from '../../kernel/retention.ts';

/** Settings a site carries; more keys arrive with their features. */
export interface SiteSettings {
  default_save_action?: 'stay' | 'return' | 'create_new' | null;
  upload_policy?: Record<string, unknown>;
  /** Self-service sign-up (POST /auth/register) as a subscriber of this site; off unless set. */
  public_registration?: boolean;
  /** Retention horizons in days per kind (GET /api/v1/retention); replaced as a whole, `{}` clears it. */
  retention?: Partial<Record<SiteRetentionKindName, number>>;
  /** Origins allowed to make bearer calls from a browser, and whether public delivery answers only those. */
  cors?: SiteCors;
}

/** A site's CORS setting: origin patterns (exact or `https://*.domain`), checked when set. */
export interface SiteCors {
  origins: string[];
  /** `listed`: the public delivery API answers only the origins above; `any` (the default): every origin. */
  delivery?: 'any' | 'listed';
}

/** A site (tenant) came into being. */
export type SiteCreated = DomainEvent<
  'SiteCreated',
  { siteId: string; name: string; settings: SiteSettings; createdBy: string; at: string }
>;
/** A site's name or settings changed; `settings` holds only the keys that changed. */
export type SiteUpdated = DomainEvent<
  'SiteUpdated',
  { siteId: string; name?: string; settings?: SiteSettings; at: string }
>;

/**
 * A site ended (a preview site torn down). Every read model drops the site's rows (kernel `SITE_DELETED`); its
 * streams stay in the log, closed: the id is never given again, so nothing is appended under it any more.
 */
export type SiteDeleted = DomainEvent<'SiteDeleted', { siteId: string; reason: string; by: string; at: string }>;

export type SiteEvent = SiteCreated | SiteUpdated | SiteDeleted;
export const SITE_EVENT_TYPES = ['SiteCreated', 'SiteUpdated', 'SiteDeleted'] as const;

export const siteStream = (siteId: string) => `${siteId}/site/${siteId}`;
