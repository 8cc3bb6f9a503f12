import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../../deps.ts';
import { siteOf } from '../../../kernel/http/access.ts';
import { commandContext } from '../../../kernel/http/command-meta.ts';
import { dataEnvelope, listEnvelope, TotalMeta, wholeList } from '../../../kernel/http/envelope.ts';
import { horizonsOf, runRetention } from '../retention.run.ts';
import { HorizonRecord, RetentionRunRecord } from './retention.schemas.ts';

const ADMIN = { caller: 'admin' as const };
const tags = ['retention'];

/** Retention of the request's site: its horizons, and a run on demand (the site's `admin` role only). */
export const retentionRoutes: FastifyPluginAsync<AppDeps> = async (plain, deps) => {
  const app = plain.withTypeProvider<ZodTypeProvider>();

  app.get(
    '/api/v1/retention',
    {
      config: ADMIN,
      schema: {
        tags,
        summary: 'Retention horizons of the active site (site setting, then environment, then default)',
        response: { 200: listEnvelope(HorizonRecord, TotalMeta) },
      },
    },
    async (req) => wholeList(await horizonsOf(deps, siteOf(req))),
  );

  app.post(
    '/api/v1/retention/run',
    {
      config: ADMIN,
      schema: {
        tags,
        summary: 'Prune the active site’s read-model rows past their horizons now (recorded as RetentionRun)',
        response: { 200: dataEnvelope(RetentionRunRecord) },
      },
    },
    async (req) => ({ data: await runRetention(deps, commandContext(req, deps.clock)) }),
  );
};
