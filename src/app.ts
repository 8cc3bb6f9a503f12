import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import { jsonSchemaTransform, serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import type { AppDeps } from './deps.ts';
import { features } from './features/index.ts';
import { findSite } from './features/sites/index.ts';
import { installAccess } from './kernel/http/access.ts';
import { installErrorHandling } from './kernel/http/error-handler.ts';
import type { Actor } from './kernel/auth/actor.ts';
import { DomainError } from './kernel/http/errors.ts';
import { findUserById } from '../projections/users/users.queries.ts';

const REQUEST_ID = /^[A-Za-z0-9._-]{8,128}$/;

/** Builds the HTTP application (no listen): kernel plugins, then every feature's routes. */
export async function buildApp(deps: AppDeps, opts: { logger?: boolean } = {}): Promise<FastifyInstance> {
  const app = Fastify({
    logger:
      opts.logger === false
        ? false
        : {
            level: deps.config.LOG_LEVEL,
            redact: {
              paths: ['req.headers.authorization', 'req.headers.cookie', '*.password', '*.token', '*.setupToken'],
              censor: '[redacted]',
            },
          },
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    bodyLimit: 1_048_576,
    trustProxy: false,
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  // While shutting down, answers close their connection, so a keep-alive client does not hold the exit.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onSend', async (req, reply) => {
    reply.header('x-request-id', req.id);
    if (closing) reply.header('connection', 'close');
  });
  installErrorHandling(app);
  await app.register(swagger, {
    openapi: { openapi: '3.1.0', info: { title: 'Content service', version: '1.0.0' }, servers: [] },
    transform: jsonSchemaTransform,
  });
  installAccess(app, {
    authenticate: (token) => authenticate(deps, token),
    siteExists: siteCache(deps),
  });
  for (const f of features) await app.register(f.routes, deps);
  app.get('/api/v1/openapi.json', { config: { caller: 'public', site: false }, schema: { hide: true } }, async () =>
    app.swagger(),
  );
  return app;
}

async function authenticate(deps: AppDeps, token: string): Promise<Actor> {
  const claims = await deps.tokens.verify(token);
  const user = await findUserById(deps.db, claims.sub);
  if (!user || user.tokenVersion !== claims.tv)
    throw new DomainError('UNAUTHENTICATED', 'the access token is no longer valid');
  return {
    type: 'user',
    id: user.userId,
    email: user.email ?? '',
    instanceAdmin: user.instanceAdmin,
    roles: user.roles,
    tokenVersion: user.tokenVersion,
  };
}

/** Known sites are remembered for a few seconds (sites are never hard-deleted); unknown ones are asked each time. */
function siteCache(deps: AppDeps): (siteId: string) => Promise<boolean> {
  const known = new Map<string, number>();
  return async (siteId) => {
    const until = known.get(siteId);
    if (until && until > Date.now()) return true;
    const found = (await findSite(deps.db, siteId)) !== null;
    if (found) known.set(siteId, Date.now() + 10_000);
    return found;
  };
}
