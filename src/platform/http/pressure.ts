import underPressure, { type FastifyUnderPressureOptions } from '@fastify/under-pressure';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

type UnderPressureHandler = NonNullable<FastifyUnderPressureOptions['pressureHandler']>;

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
  // The answer is returned, not sent: under-pressure sends a returned value and stops there (its types say void,
  // its handlePressure does this), whereas a handler that sends and returns nothing lets the request go on into
  // authentication, whose 401 then overwrote the 503 already on its way.
  const shed = (req: FastifyRequest, reply: FastifyReply, type: string) => {
    if (excluded.has(req.url.split('?')[0]!)) return undefined;
    void reply.status(503).headers({ 'retry-after': String(o.retryAfterS), 'x-svc-overload': type });
    return {
      errors: [
        {
          code: 'SERVICE_UNAVAILABLE',
          message: 'the service is overloaded; retry later',
          path: [],
          extensions: { overload: type },
        },
      ],
    };
  };
  await app.register(underPressure, {
    sampleInterval: o.sampleIntervalMs,
    maxEventLoopDelay: o.maxEventLoopDelayMs,
    maxEventLoopUtilization: o.maxEventLoopUtilization,
    retryAfter: o.retryAfterS,
    pressureHandler: shed as unknown as UnderPressureHandler,
  });
}
