import { z } from 'zod';

/** The spec's success envelope. */
export const envelope = <T extends z.ZodTypeAny>(data: T) =>
  z.object({ data, meta: z.record(z.string(), z.unknown()).optional() });

export const ErrorEnvelope = z.object({
  errors: z.array(
    z.object({
      code: z.string(),
      message: z.string(),
      path: z.array(z.string()),
      extensions: z.record(z.string(), z.unknown()),
    }),
  ),
});
