import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../../deps.ts';
import type { ActorRef } from '../../../kernel/es/event.ts';
import { commandContext } from '../../../kernel/http/command-meta.ts';
import { dataEnvelope } from '../../../kernel/http/envelope.ts';
import { inspectJson } from '../../../platform/http/input-guard.ts';
import { SITE_ID_PATTERN } from '../../../kernel/tenancy/site.ts';
import { recordDelivery, webhookSecretOf } from '../git.commands.ts';
import { DeliveryIdMissing, DeliveryPayloadInvalid, InvalidSignature } from '../git.errors.ts';
import { deliveryKey, GIT_PROVIDERS, type GitProvider } from '../../../contracts/git/git.events.ts';
import { enforceRate } from '../../../platform/rate-limit/enforce.ts';
import { DELIVERY_HEADERS, deliveryHeader, verifyDelivery } from '../git.verify.ts';
import { ReceiptAnswer, ReceiverParams } from './git.schemas.ts';

const tags = ['git'];
/** A delivery's body at most (GitHub caps its payloads at 25 MB; what this service reads of one is far smaller). */
const MAX_BODY = 2 * 1024 * 1024;
const ID = /^[A-Za-z0-9_-]{1,64}$/;
const isProvider = (p: string): p is GitProvider => (GIT_PROVIDERS as readonly string[]).includes(p);

/** The delivery's JSON (the signed bytes themselves: only `application/json` is taken, see the plugin's parser). */
function payloadOf(body: Buffer): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(body.toString('utf8'));
  } catch {
    throw new DeliveryPayloadInvalid({ message: 'not JSON' });
  }
  if (!value || typeof value !== 'object' || Array.isArray(value))
    throw new DeliveryPayloadInvalid({ message: 'not a JSON object' });
  const problem = inspectJson(value, ['body']);
  if (problem) throw new DeliveryPayloadInvalid({ message: `${problem.path.join('.')}: ${problem.message}` });
  return value as Record<string, unknown>;
}

/**
 * The public receiver of a provider's webhooks. It verifies the delivery on the raw body before anything else
 * (an unknown integration, another provider's, a wrong or missing signature: 401 INVALID_SIGNATURE, nothing
 * written), then records it once per (provider, delivery id) and answers at once; processing is a reactor's.
 */
export const gitWebhookRoutes: FastifyPluginAsync<AppDeps> = async (plain, deps) => {
  // This plugin's routes only: the body stays bytes until its signature is checked, and only JSON is taken (a
  // signature covers the body, not its content type: a form reading of signed JSON could say something else).
  // GitHub webhooks are set to `application/json`; anything else answers 415.
  plain.removeAllContentTypeParsers();
  plain.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: MAX_BODY }, (_req, body, done) =>
    done(null, body),
  );
  const app = plain.withTypeProvider<ZodTypeProvider>();

  app.post(
    '/api/v1/integrations/git/webhook/:provider/:siteId/:integrationId',
    {
      config: { caller: 'public', site: false },
      bodyLimit: MAX_BODY,
      schema: {
        tags,
        summary: 'Receiver of GitHub (X-Hub-Signature-256) and GitLab (X-Gitlab-Token) webhooks',
        params: ReceiverParams,
        response: { 200: dataEnvelope(ReceiptAnswer) },
      },
    },
    async (req, reply) => {
      // Requests from one address per minute (SVC_GIT_WEBHOOK_PER_MINUTE): a provider's bursts fit, guessing does not.
      const perIp = { max: deps.config.SVC_GIT_WEBHOOK_PER_MINUTE, windowS: 60 };
      await enforceRate(deps.limiter, reply, [{ key: `git-webhook:${req.ip}`, rule: perIp }]);
      const { provider, siteId, integrationId } = req.params;
      const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      if (!isProvider(provider) || !SITE_ID_PATTERN.test(siteId) || !ID.test(integrationId))
        throw new InvalidSignature({});
      const secret = await webhookSecretOf(deps, siteId, provider, integrationId);
      if (!secret || !(await verifyDelivery(provider, secret, body, req.headers))) throw new InvalidSignature({});
      const names = DELIVERY_HEADERS.get(provider)!;
      const deliveryId = deliveryHeader(req.headers, names.id);
      if (!deliveryId) throw new DeliveryIdMissing({ header: names.id });
      // Unsigned (GitHub signs the body only): what processing trusts is read from the payload.
      const event = deliveryHeader(req.headers, names.event) ?? 'unknown';
      const payload = payloadOf(body);
      // GitHub: the signed body itself, so a replay under a new delivery id is the same delivery. GitLab (a shared
      // token, nothing signed): its retry key, else its event id.
      const key =
        provider === 'github'
          ? deliveryKey(body)
          : deliveryKey(`id:${deliveryHeader(req.headers, 'idempotency-key') ?? deliveryId}`);
      const ctx = commandContext(req, deps.clock, siteId);
      const actor: ActorRef = { type: 'system', id: `git-${provider}` };
      const recorded = await recordDelivery(
        deps,
        { ...ctx, actor, metadata: { ...ctx.metadata, actor } },
        { integrationId, provider, key, deliveryId, event, payload },
      );
      return { data: { deliveryId, duplicate: !recorded } };
    },
  );
};
