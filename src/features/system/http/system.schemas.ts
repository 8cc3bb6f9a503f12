import { z } from 'zod';

/** A projection's state: where it has read the log to (an opaque position) and how many events it trails. */
export const ProjectionStatusRecord = z
  .object({
    name: z.string(),
    version: z.number().int(),
    mode: z.enum(['inline', 'async']),
    /** `new` before its first rebuild, `live` once built. */
    status: z.string(),
    checkpoint: z.string().nullable(),
    lag: z.number().int(),
  })
  .meta({ id: 'ProjectionStatus' });

/** `/health`: the overall status, and with the observability token the state of each subsystem. */
export const HealthReport = z
  .object({
    status: z.enum(['ok', 'degraded']),
    env: z.string(),
    database: z
      .object({
        status: z.enum(['ok', 'down']),
        kind: z.string(),
        latencyMs: z.number().int().optional(),
        error: z.string().optional(),
      })
      .optional(),
    eventStore: z.object({ status: z.enum(['ok', 'down']), kind: z.string() }).optional(),
    /** `not_configured` without REDIS_URL; else the limiter's store. */
    redis: z
      .object({ status: z.enum(['ok', 'down', 'not_configured']), kind: z.enum(['memory', 'redis']).optional() })
      .optional(),
    search: z.object({ status: z.string() }).optional(),
    projections: z.array(z.object({ name: z.string(), lag: z.number().int(), status: z.string() })).optional(),
  })
  .meta({ id: 'HealthReport' });
