import { z } from 'zod';

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
