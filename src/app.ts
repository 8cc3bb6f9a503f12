import { randomUUID } from 'node:crypto';
import pino from 'pino';
import Fastify, {
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
} from 'fastify';
import swagger from '@fastify/swagger';
import { serializerCompiler } from 'fastify-type-provider-zod';
import type { AppDeps } from './deps.ts';
import { features } from './features/index.ts';
import { findSite } from '../projections/sites/index.ts';
import { installAccess } from './kernel/http/access.ts';
import fastifyStatic from '@fastify/static';
import { installErrorHandling } from './kernel/http/error-handler.ts';
import { installFlowTree } from './kernel/http/flow-tree.ts';
import { edgeServerOptions, installEdge } from './platform/http/edge.ts';
import { givenId } from './kernel/http/request-ids.ts';
import { installPressureLimiter } from './platform/http/pressure.ts';
import { guardedValidatorCompiler } from './kernel/http/validation.ts';
import { installMetrics } from './platform/http/metrics.ts';
import {
  installOpenApiRoutes,
  openApiTransform,
  openApiTransformObject,
  securitySchemes,
} from './platform/http/openapi.ts';
import { installDeprecation } from './platform/http/deprecation.ts';
import { installCors } from './platform/http/cors.ts';
import { corsPolicy } from './cors-policy.ts';
import { installCompression } from './platform/http/compression.ts';
import { installApiThrottle } from './platform/rate-limit/api-throttle.ts';
import type { Actor, AuthContext } from './kernel/auth/actor.ts';
import cookie from '@fastify/cookie';
import { firstInstanceAdmin } from '../projections/users/index.ts';
import { InvalidAccessToken } from './kernel/http/kernel.errors.ts';

/**
 * Builds the HTTP application (no listen): kernel plugins, then every feature's routes. `logStream` takes the log
 * lines instead of standard output (a test reads what the framework warns about); `compressionThreshold` lets a test
 * compress answers smaller than the kilobyte the service waits for.
 */
export async function buildApp(
  deps: AppDeps,
  opts: { logger?: boolean; logStream?: pino.DestinationStream; compressionThreshold?: number } = {},
): Promise<FastifyInstance> {
  const c = deps.config;
  const app = Fastify(serverOptions(deps, opts));
  app.setValidatorCompiler(guardedValidatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  installResponseHeaders(app);
  installErrorHandling(app);
  installEdge(app);
  await installCors(app, corsPolicy(deps, app));
  await installPressureLimiter(app, {
    enabled: c.SVC_PRESSURE_LIMITER_ENABLED,
    sampleIntervalMs: c.SAMPLE_INTERVAL,
    maxEventLoopDelayMs: c.MAX_EVENT_LOOP_DELAY,
    maxEventLoopUtilization: c.MAX_EVENT_LOOP_UTILIZATION,
    retryAfterS: c.RETRY_AFTER,
    excludedPaths: c.EXCLUDED_PATHS,
  });
  await app.register(cookie);
  // reply.sendFile for whoever serves files outside a route of their own (the studio's assets); no routes.
  await app.register(fastifyStatic, { serve: false, index: false, dotfiles: 'ignore' });
  // Before any route: only routes registered after it are compressed.
  await installCompression(app, { threshold: opts.compressionThreshold });
  await installOpenApi(app, c.SVC_PUBLIC_URL);
  installRequestChecks(app, deps);
  for (const f of features) await app.register(f.routes, deps);
  app.get('/api/v1/openapi.json', { config: { caller: 'public', site: false }, schema: { hide: true } }, async () =>
    app.swagger(),
  );
  return app;
}

/** The server's limits and timeouts, its log (redacted, one line per request) and request ids. */
function serverOptions(deps: AppDeps, opts: { logger?: boolean; logStream?: pino.DestinationStream }) {
  const c = deps.config;
  return {
    ...edgeServerOptions({
      requestTimeoutMs: c.SVC_REQUEST_TIMEOUT_MS,
      headersTimeoutMs: c.SVC_HEADERS_TIMEOUT_MS,
      connectionTimeoutMs: c.SVC_CONNECTION_TIMEOUT_MS,
      keepAliveTimeoutMs: c.SVC_KEEP_ALIVE_TIMEOUT_MS,
      maxHeaderBytes: c.SVC_MAX_HEADER_BYTES,
      trustProxy: c.SVC_TRUST_PROXY,
    }),
    logger:
      opts.logger === false
        ? false
        : {
            level: deps.config.LOG_LEVEL,
            // Written asynchronously: lines logged while a write is under way go out together (one system call for
            // many request lines under load, at once when idle), and what is left is flushed on exit.
            stream: opts.logStream ?? pino.destination({ dest: 1, sync: false }),
            redact: {
              paths: ['req.headers.authorization', 'req.headers.cookie', '*.password', '*.token', '*.setupToken'],
              censor: '[redacted]',
            },
          },
    // One line per request, not fastify's two: at info, request logging was a quarter of a read's CPU.
    logController: new OneLineRequestLog(),
    genReqId: (req) => givenId(req.headers['x-request-id']) ?? randomUUID(),
    bodyLimit: 1_048_576,
  } satisfies FastifyServerOptions;
}

/**
 * Every answer names its request id. While shutting down, answers close their connection, so a keep-alive client
 * does not hold the exit.
 */
function installResponseHeaders(app: FastifyInstance): void {
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onSend', async (req, reply) => {
    reply.header('x-request-id', req.id);
    if (closing) reply.header('connection', 'close');
  });
}

/** The OpenAPI document of every route registered after it, and the routes that serve it. */
async function installOpenApi(app: FastifyInstance, publicUrl: string | undefined): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Content service',
        version: '1.0.0',
        description:
          'Multi-tenant, event-sourced headless content service. Every answer is `{ data, meta? }` or `{ errors }`.',
      },
      servers: [{ url: publicUrl ?? '/' }],
      components: { securitySchemes },
    },
    stripBasePath: false,
    transform: openApiTransform,
    transformObject: openApiTransformObject,
  });
  installOpenApiRoutes(app);
}

/**
 * What every request passes through before its route: the caller and the site, a flow run tree, deprecation
 * notices, metrics and the rate limit.
 */
function installRequestChecks(app: FastifyInstance, deps: AppDeps): void {
  const c = deps.config;
  installAccess(app, {
    authenticate: authenticator(deps),
    siteExists: siteCache(deps, app),
    devActor: devActor(deps),
    ownHost: c.SVC_PUBLIC_URL ? new URL(c.SVC_PUBLIC_URL).host : null,
  });
  // After access: a flow run tree header counts only for the site the request acts on.
  installFlowTree(app, {
    mac: { sign: (p) => deps.tokens.signFlowTree(p), verify: (p, sig) => deps.tokens.verifyFlowTree(p, sig) },
    now: () => deps.clock.now(),
  });
  installDeprecation(app);
  installMetrics(app, {
    store: deps.store,
    token: deps.config.METRICS_TOKEN,
    projectionLags: async () => (await deps.engine.status()).map((p) => ({ name: p.name, lag: Number(p.lag ?? 0) })),
  });
  installApiThrottle(app, {
    limiter: deps.limiter,
    rule: { max: deps.config.SVC_RATE_LIMIT_MAX, windowS: deps.config.SVC_RATE_LIMIT_WINDOW_S },
    disabled: deps.config.SVC_RATE_LIMIT_DISABLED,
  });
}

/**
 * Fastify's request log in one line per request: no "incoming request" line, and a compact "request completed"
 * (method, url, status, time, request id). Errors and fastify's other lines are logged as fastify logs them.
 */
class OneLineRequestLog extends Fastify.LogController {
  override incomingRequest(): void {}
  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (error) return super.requestCompleted(error, request, reply);
    if (this.isLogDisabled(request)) return;
    request.log.info(
      {
        method: request.method,
        url: loggedUrl(request.url),
        statusCode: reply.statusCode,
        responseTime: reply.elapsedTime,
      },
      'request completed',
    );
  }
}

/**
 * Asks each feature's authenticators in order (API keys, external issuers, the service's own tokens); the
 * first that recognises the token decides. A token nobody recognises is refused.
 */
function authenticator(deps: AppDeps): (token: string, ctx: AuthContext) => Promise<Actor> {
  const chain = features.flatMap((f) => f.authenticators?.(deps) ?? []).sort((a, b) => a.order - b.order);
  return async (token, ctx) => {
    for (const a of chain) {
      const actor = await a.authenticate(token, ctx);
      if (actor) return actor;
    }
    throw new InvalidAccessToken();
  };
}

/** SVC_DEV_AUTH (refused in production at start): token-less requests act as the first instance admin. */
function devActor(deps: AppDeps): (() => Promise<Actor | null>) | undefined {
  if (!deps.config.SVC_DEV_AUTH) return undefined;
  return async () => {
    const user = await firstInstanceAdmin(deps.db);
    return user
      ? {
          type: 'user',
          id: user.userId,
          email: user.email ?? '',
          instanceAdmin: true,
          roles: user.roles,
          tokenVersion: user.tokenVersion,
          amr: ['dev'],
        }
      : null;
  };
}

/**
 * Known sites are remembered for a few seconds; unknown ones are asked each time. A site deleted (a preview's
 * teardown) is forgotten at once on the node that deleted it, and within those seconds on the others.
 */
function siteCache(deps: AppDeps, app: FastifyInstance): (siteId: string) => Promise<boolean> {
  const known = new Map<string, number>();
  const unsubscribe = deps.store.onAppended((events) => {
    for (const e of events) if (e.type === 'SiteDeleted') known.delete(e.siteId);
  });
  app.addHook('onClose', async () => unsubscribe());
  return async (siteId) => {
    const until = known.get(siteId);
    if (until && until > Date.now()) return true;
    const found = (await findSite(deps.db, siteId)) !== null;
    if (found) known.set(siteId, Date.now() + 10_000);
    return found;
  };
}

/** A request's URL as the log keeps it: single-use credentials of a query (realtime tickets, OAuth states and codes) hidden. */
const loggedUrl = (url: string) => url.replace(/([?&](?:ticket|state|code)=)[^&#]*/g, '$1[redacted]');
