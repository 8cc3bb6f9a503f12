import { z } from 'zod';

/** The instance's settings an administrator reads and changes. */
export const InstanceRecord = z.object({
  /** Where the studio is served (`/my-admin`); null before setup. */
  adminPath: z.string().nullable(),
});

/** PATCH /api/v1/admin/instance: the new admin path, with the caller's password (step-up). */
export const InstancePatch = z
  .object({
    adminPath: z.string().max(64),
    password: z.string().min(1).max(1024),
  })
  .strict();
