import underPressure from '@fastify/under-pressure';
import type { FastifyInstance } from 'fastify';

export interface PressureOptions {
  enabled: boolean;
  sampleIntervalMs: number;
  /** 0: not watched. */
  maxEventLoopDelayMs: number;
  /** 0: not watched. */
  maxEventLoopUtilization: number;
  retryAfterS: number;
  excludedPaths: string[];
}

/**
 * The pressure limiter (@fastify/under-pressure): while the event loop lags past its limit, requests answer 503
 * SERVICE_UNAVAILABLE with Retry-After and X-Svc-Overload (what is overloaded) instead of queueing up; health and
 * metrics paths stay open so that probes see the truth.
 */
export async function installPressureLimiter(app: FastifyInstance, o: PressureOptions): Promise<void> {
  if (!o.enabled || (o.maxEventLoopDelayMs === 0 && o.maxEventLoopUtilization === 0)) return;
  const excluded = new Set(o.excludedPaths);
  await app.register(underPressure, {
    sampleInterval: o.sampleIntervalMs,
    maxEventLoopDelay: o.maxEventLoopDelayMs,
    maxEventLoopUtilization: o.maxEventLoopUtilization,
    retryAfter: o.retryAfterS,
    pressureHandler: (req, reply, type) => {
      if (excluded.has(req.url.split('?')[0]!)) return;
      void reply
        .status(503)
        .headers({ 'retry-after': String(o.retryAfterS), 'x-svc-overload': String(type) })
        .send({
          errors: [
            {
              code: 'SERVICE_UNAVAILABLE',
              message: 'the service is overloaded; retry later',
              path: [],
              extensions: { overload: type },
            },
          ],
        });
    },
  });
}
