import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { EventStore } from '../../kernel/es/event-store.ts';
import { MetricsTokenRequired } from '../../kernel/http/kernel.errors.ts';

export const OBSERVABILITY_HEADER = 'x-svc-observability-token';

export interface MetricsOptions {
  store: EventStore;
  /** Projection lags, read when scraped. */
  projectionLags(): Promise<{ name: string; lag: number }[]>;
  /** When set, /metrics needs it in the X-Svc-Observability-Token header. */
  token: string | undefined;
}

const same = (a: string, b: string) => {
  const h = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(h(a), h(b));
};

/**
 * Prometheus metrics (prom-client, a registry per app): requests and latency by route, event-store append
 * latency, projection lag, rate-limit rejections, and the process's own. `GET /metrics`.
 */
export function installMetrics(app: FastifyInstance, opts: MetricsOptions): void {
  const register = new Registry();
  collectDefaultMetrics({ register });
  const requests = new Counter({
    name: 'svc_http_requests_total',
    help: 'HTTP requests by method, route and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [register],
  });
  const latency = new Histogram({
    name: 'svc_http_request_duration_seconds',
    help: 'HTTP request latency by method and route',
    labelNames: ['method', 'route'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [register],
  });
  const rejected = new Counter({
    name: 'svc_rate_limit_rejections_total',
    help: 'Requests refused by a rate limit (429), by route',
    labelNames: ['route'] as const,
    registers: [register],
  });
  const appends = new Histogram({
    name: 'svc_event_store_append_seconds',
    help: 'Event-store append latency, commit included',
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
    registers: [register],
  });
  new Gauge({
    name: 'svc_projection_lag_events',
    help: 'Events not yet applied, by projection',
    labelNames: ['projection'] as const,
    registers: [register],
    async collect() {
      this.reset();
      for (const p of await opts.projectionLags()) this.set({ projection: p.name }, p.lag);
    },
  });
  const off = opts.store.onAppended((_events, { seconds }) => appends.observe(seconds));
  app.addHook('onClose', async () => off());
  app.addHook('onResponse', async (req, reply) => {
    const route = req.routeOptions.url ?? 'unmatched';
    requests.inc({ method: req.method, route, status: String(reply.statusCode) });
    latency.observe({ method: req.method, route }, reply.elapsedTime / 1000);
    if (reply.statusCode === 429) rejected.inc({ route });
  });
  app.get('/metrics', { config: { caller: 'public', site: false }, schema: { hide: true } }, async (req, reply) => {
    const given = req.headers[OBSERVABILITY_HEADER];
    if (opts.token && (typeof given !== 'string' || !same(given, opts.token)))
      throw new MetricsTokenRequired({ header: OBSERVABILITY_HEADER });
    void reply.type(register.contentType);
    return register.metrics();
  });
}
