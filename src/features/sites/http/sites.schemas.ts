import { z } from 'zod';
import {
  RETENTION_MAX_DAYS,
  RETENTION_MIN_DAYS,
  SITE_RETENTION_KINDS,
  type SiteRetentionKindName,
} from '../../../kernel/retention.ts';

const Days = z.number().int().min(RETENTION_MIN_DAYS).max(RETENTION_MAX_DAYS).optional();

/**
 * A site's retention horizons in days, by kind: the site's kinds only (an unknown key, `sessions` included, which
 * is instance-wide, is refused with its path), whole days from 1 to 36 500.
 */
export const RetentionSettings = z
  .object(Object.fromEntries(SITE_RETENTION_KINDS.map((k) => [k, Days])) as Record<SiteRetentionKindName, typeof Days>)
  .strict();

/**
 * Browser access to the site (README "Calling from a browser"): `origins` may make bearer calls without cookies (the
 * patterns are checked by the site's decider, CORS_ORIGIN_INVALID); `delivery: 'listed'` narrows the public delivery
 * API from every origin to those. Replaced as a whole.
 */
export const CorsSettings = z
  .object({
    origins: z.array(z.string().max(300)).max(100),
    delivery: z.enum(['any', 'listed']).optional(),
  })
  .strict();

/** A site (tenant); `settings` holds default_save_action, upload_policy, public_registration and the like. */
export const SiteRecord = z
  .object({
    id: z.string(),
    name: z.string(),
    settings: z.record(z.string(), z.unknown()),
    createdAt: z.string(),
    updatedAt: z.string(),
    version: z.number().int(),
  })
  .meta({ id: 'Site' });

/** The active site with its event activity. */
export const ActiveSite = SiteRecord.extend({
  activity: z.object({ eventCount: z.number().int(), lastEventAt: z.string().nullable() }),
});

/** The settings a request (PATCH /site, a config import) may set, each checked for its shape. */
export const SettingsBody = z
  .object({
    default_save_action: z.enum(['stay', 'return', 'create_new']).nullable().optional(),
    // Its shape; the files slice's PUT /api/v1/uploads/config also checks the types against its catalogue.
    upload_policy: z
      .object({
        maxBytes: z
          .number()
          .int()
          .min(1)
          .max(5 * 1024 ** 3),
        allowedMimeTypes: z.array(z.string().max(100)).max(200),
        allowedExtensions: z.array(z.string().max(20)).max(200),
      })
      .partial()
      .strict()
      .optional(),
    public_registration: z.boolean().optional(),
    retention: RetentionSettings.optional(),
    cors: CorsSettings.optional(),
  })
  .strict();
