import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../../deps.ts';
import { ping } from '../../../platform/db/ping.ts';
import { dataEnvelope, errorEnvelope, listEnvelope } from '../../../kernel/http/envelope.ts';
import { OBSERVABILITY_HEADER } from '../../../platform/http/metrics.ts';
import { ProjectionNotFound } from '../system.errors.ts';
import { HealthReport, ProjectionStatusRecord } from './system.schemas.ts';
import { pathId } from '../../../kernel/http/path-params.ts';

export { OBSERVABILITY_HEADER };

const ProjectionParams = z.object({ name: pathId(100) });

export const systemRoutes: FastifyPluginAsync<AppDeps> = async (plain, deps) => {
  const app = plain.withTypeProvider<ZodTypeProvider>();
  const { config, engine, db } = deps;
  const env = config.NODE_ENV;

  const observer = (req: FastifyRequest) => {
    const given = req.headers[OBSERVABILITY_HEADER];
    const want = config.SVC_OBSERVABILITY_TOKEN;
    if (!want || typeof given !== 'string') return false;
    const h = (s: string) => createHash('sha256').update(s).digest();
    return timingSafeEqual(h(given), h(want));
  };

  app.get(
    '/health',
    {
      config: { caller: 'public', site: false },
      schema: {
        tags: ['system'],
        summary: 'Service health (detail with the observability token)',
        response: {
          200: HealthReport,
          // Degraded (the database is down); the overload limiter's refusal where /health is not excluded from it.
          503: z.union([HealthReport, errorEnvelope(503)]).describe('Degraded or overloaded'),
        },
      },
    },
    async (req, reply) => {
      if (!observer(req)) return { status: 'ok', env };
      const checks = await subsystems(deps);
      const ok = checks.database.status === 'ok';
      reply.status(ok ? 200 : 503);
      return { status: ok ? 'ok' : 'degraded', env, ...checks };
    },
  );

  app.get(
    '/api/v1/health',
    {
      config: { caller: 'public', site: false },
      schema: {
        tags: ['system'],
        summary: 'API health',
        response: { 200: dataEnvelope(z.object({ status: z.string() })) },
      },
    },
    async () => {
      await ping(db);
      return { data: { status: 'ok' } };
    },
  );

  app.get(
    '/api/v1/admin/projections',
    {
      config: { caller: 'admin', site: false },
      schema: {
        tags: ['admin'],
        summary: 'List projections with their positions and lag',
        response: { 200: listEnvelope(ProjectionStatusRecord, z.object({ total: z.number().int() })) },
      },
    },
    async () => {
      const list = await engine.status();
      return { data: list, meta: { total: list.length } };
    },
  );

  app.post(
    '/api/v1/admin/projections/:name/rebuild',
    {
      config: { caller: 'admin', site: false },
      schema: {
        params: ProjectionParams,
        tags: ['admin'],
        summary: 'Rebuild a projection from the event log',
        response: { 200: dataEnvelope(ProjectionStatusRecord, 'Rebuilt') },
      },
    },
    async (req) => {
      if (!engine.get(req.params.name)) throw new ProjectionNotFound({ name: req.params.name });
      return { data: await engine.rebuild(req.params.name) };
    },
  );
};

async function subsystems(deps: AppDeps) {
  const started = Date.now();
  let database: { status: 'ok' | 'down'; kind: string; latencyMs?: number; error?: string };
  try {
    await ping(deps.db);
    database = { status: 'ok', kind: deps.database.kind, latencyMs: Date.now() - started };
  } catch (err) {
    database = { status: 'down', kind: deps.database.kind, error: (err as Error).message };
  }
  const projections = await deps.engine.status().catch(() => []);
  return {
    database,
    eventStore: { status: database.status, kind: deps.store.kind },
    redis: deps.config.REDIS_URL ? await deps.limiter.health() : { status: 'not_configured' },
    search: { status: 'postgres' },
    projections: projections.map((p) => ({ name: p.name, lag: p.lag, status: p.status })),
  };
}
