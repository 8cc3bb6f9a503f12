import { z } from 'zod';

/** What one batch of the migration did and what is left; the client polls until `done`. */
export const EnvelopeMigrationResult = z.object({
  /** The key values are re-wrapped under. */
  activeKeyId: z.string(),
  /** Items re-wrapped by this call. */
  rewrapped: z.number().int(),
  /** Items of this batch none of whose values opened (tampered with or moved): left as they are. */
  unreadable: z.number().int(),
  /** Items still sealed under another configured key. */
  remaining: z.number().int(),
  /** Items sealed under a key that is no longer configured: they cannot be re-wrapped. */
  unavailable: z.number().int(),
  done: z.boolean(),
});
