import { timingSafeEqual } from 'node:crypto';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../../deps.ts';
import { siteOf } from '../../../kernel/http/access.ts';
import { dataEnvelope, errorEnvelope } from '../../../kernel/http/envelope.ts';
import { FLOW_TREE_HEADER, flowTreeOf } from '../../../kernel/http/flow-tree.ts';
import { dictFrom } from '../../../kernel/safe/keys.ts';
import { hashFlowToken, loadFlow } from '../flow.commands.ts';
import { FlowNotFound, WebhookNotConfigured, WebhookTokenInvalid } from '../flow.errors.ts';
import { startCalled } from '../runs/flow-call.ts';
import { FlowParams } from './flows.schemas.ts';
import { RunInputBody } from './flow-runs.schemas.ts';

/** Headers that carry credentials: never part of a run's input (the log would keep them). */
const CREDENTIAL_HEADERS = new Set([
  'authorization',
  'proxy-authorization',
  'cookie',
  'x-flow-token',
  'x-api-key',
  'x-svc-refresh',
  FLOW_TREE_HEADER,
]);

/** The token a call presents: x-flow-token, or Authorization: Bearer. */
function presented(req: FastifyRequest): string | null {
  const header = req.headers['x-flow-token'];
  if (typeof header === 'string' && header) return header;
  const m = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '');
  return m ? m[1]! : null;
}

/** SHA-256 hashes are compared in constant time (both are 64 hex characters). */
const sameHash = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

/** A run's input from a webhook call: its body, its headers without credentials, its query. */
const webhookInput = (req: FastifyRequest) => ({
  body: req.body ?? null,
  headers: dictFrom(
    Object.entries(req.headers).filter(([k, v]) => !CREDENTIAL_HEADERS.has(k.toLowerCase()) && v !== undefined),
  ),
  query: dictFrom(Object.entries((req.query ?? {}) as Record<string, unknown>)),
});

export const WebhookRunBody = z
  .object({ runId: z.string(), status: z.literal('running') })
  .meta({ id: 'FlowWebhookRun' });

/** The webhook trigger: no session, the flow's own token. */
export const flowWebhookRoutes: FastifyPluginAsync<AppDeps> = async (plain, deps) => {
  const app = plain.withTypeProvider<ZodTypeProvider>();
  app.post(
    '/api/v1/flows/:id/trigger',
    {
      config: { caller: 'public', ownCredential: true },
      schema: {
        tags: ['flows'],
        summary: 'Start a webhook flow (token in x-flow-token or as Bearer); input { body, headers, query }',
        description:
          "A call a flow step makes (its x-svc-flow-tree header) starts a run of the caller's tree, on its root's " +
          "budget (409 BUDGET_EXCEEDED past it); any other call starts a root run, within the site's budget of " +
          'root runs (429 RATE_LIMITED with Retry-After past it).',
        params: FlowParams,
        body: RunInputBody.optional(),
        response: { 202: dataEnvelope(WebhookRunBody, 'Accepted: the worker runs it'), 429: errorEnvelope(429) },
      },
    },
    async (req, reply) => {
      const siteId = siteOf(req);
      const { state, version } = await loadFlow(deps.store, siteId, req.params.id);
      const flow = state.status === 'present' ? state.flow : null;
      if (!flow || flow.definition.trigger !== 'webhook' || flow.definition.status !== 'active')
        throw new FlowNotFound({ flowId: req.params.id });
      if (!flow.tokenHash) throw new WebhookNotConfigured();
      const token = presented(req);
      if (!token || !sameHash(hashFlowToken(token), flow.tokenHash)) throw new WebhookTokenInvalid();
      // A flow step's call (a genuine tree header of this site) continues its tree, as a `trigger` step's child.
      const runId = await startCalled(deps, flowTreeOf(req), {
        ...{ siteId, flow, flowVersion: version, trigger: 'webhook', input: webhookInput(req) },
        now: deps.clock.now(),
      });
      reply.status(202);
      return { data: { runId, status: 'running' as const } };
    },
  );
};
