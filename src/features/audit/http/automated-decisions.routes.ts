import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../../deps.ts';
import { actorOf, siteOf } from '../../../kernel/http/access.ts';
import { readAsSite } from '../../../kernel/tenancy/site.ts';
import { agentRevisionsOfCreator, countAgentRevisionsOfCreator } from '../../../../projections/item-revisions/index.ts';
import { listEnvelope } from '../../../kernel/http/envelope.ts';
import { AutomatedDecision, AutomatedDecisionsMeta } from './audit.schemas.ts';

const Page = z
  .object({
    limit: z.coerce.number().int().min(1).max(200).default(25),
    offset: z.coerce.number().int().min(0).default(0),
  })
  .strict();

/** GET /api/v1/me/automated-decisions: what agents changed in the caller's content on this site (GDPR art. 22). */
export const automatedDecisionsRoutes: FastifyPluginAsync<AppDeps> = async (plain, deps) => {
  const app = plain.withTypeProvider<ZodTypeProvider>();
  const { db } = deps;
  const guard = deps.items.check;
  app.get(
    '/api/v1/me/automated-decisions',
    {
      schema: {
        tags: ['me'],
        summary: 'List agent-authored revisions of the caller content',
        querystring: Page,
        response: {
          200: listEnvelope(AutomatedDecision, AutomatedDecisionsMeta, 'Agent revisions, newest first'),
        },
      },
    },
    async (req) => {
      const page = req.query;
      const [data, total] = await readAsSite(
        db,
        siteOf(req),
        async (trx) =>
          [
            await agentRevisionsOfCreator(trx, siteOf(req), actorOf(req).id, page),
            await countAgentRevisionsOfCreator(trx, siteOf(req), actorOf(req).id),
          ] as const,
      );
      // Values as the caller may read them now: a field outside their rules is left out, a sealed one masked; a
      // collection they may no longer read shows that an agent changed their item, and nothing of its values.
      const shown = await Promise.all(
        data.map(async (r) => {
          const s = await guard.collection(req, r.collection).catch(() => null);
          if (!s) return { ...r, data: {}, delta: {} };
          // The item's id is the entry's itemId: data keeps the revision's own keys, as the subject's export has them.
          const shown = await deps.items.present.revision(req, s, r.itemId, r);
          const { id: _id, ...data } = shown.data;
          return { ...shown, data };
        }),
      );
      return { data: shown, meta: { total, limit: page.limit, offset: page.offset } };
    },
  );
};
