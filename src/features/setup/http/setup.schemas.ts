import { z } from 'zod';
import { Session } from '../../auth/index.ts';
import { SiteRecord } from '../../sites/index.ts';

/**
 * What completing setup answers: the first site (null only if it is not yet readable) and a session of its
 * administrator, as a login answers it.
 */
export const SetupResult = Session.extend({ site: SiteRecord.nullable() });

/** What setup can offer before it runs. */
export const SetupCapabilities = z.object({
  setupComplete: z.boolean(),
  encryption: z.object({ available: z.boolean() }),
});
