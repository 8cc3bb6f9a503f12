import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { DomainError, type ErrorObject } from './errors.ts';

const send = (status: number, errors: ErrorObject[]) => ({ status, body: { errors } });

const JSON_TYPE = 'application/json; charset=utf-8';
const NOT_FOUND_BODY = JSON.stringify({
  errors: [{ code: 'NOT_FOUND', message: 'not found', path: [], extensions: {} }],
});

/**
 * A handler of the GETs and HEADs no route matched (the studio at its admin path, which moves while the service
 * runs): true when it answered. A route of its own (`GET /*`) would also catch what the router refuses, such as a
 * path parameter over the limit (414), and would be a second 404 to tell apart from the one below.
 */
export type NotFoundFallback = (req: FastifyRequest, reply: FastifyReply) => Promise<boolean>;

declare module 'fastify' {
  interface FastifyInstance {
    /** Asked in turn before the one 404 (see NotFoundFallback); a plugin pushes its own. */
    notFoundFallbacks: NotFoundFallback[];
  }
}

/**
 * One place turns every failure into the spec's error envelope; nothing unexpected leaks its detail. The envelope is
 * built here, typed, and sent as JSON text: the routes' declared error schemas document it, and encoding it through
 * them again cost about 10 µs per answer, a fifth of a cached 404 (see docs/decisions.md).
 */
export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, req, reply) => {
    const { status, body } = toResponse(err);
    if (status >= 500 && !(err instanceof DomainError)) req.log.error({ err }, 'request failed');
    if (err instanceof DomainError && err.options.headers) void reply.headers(err.options.headers);
    return reply.status(status).type(JSON_TYPE).send(JSON.stringify(body));
  });
  const fallbacks: NotFoundFallback[] = [];
  app.decorate('notFoundFallbacks', fallbacks);
  // A fallback that ends in the 404 itself (a missing file: callNotFound) comes back here once more: not asked again.
  const asked = new WeakSet<FastifyRequest>();
  app.setNotFoundHandler(async (req, reply) => {
    if ((req.method === 'GET' || req.method === 'HEAD') && !asked.has(req)) {
      asked.add(req);
      for (const f of fallbacks) if (await f(req, reply)) return reply;
    }
    return reply.status(404).type(JSON_TYPE).send(NOT_FOUND_BODY);
  });
}

function toResponse(err: FastifyError): { status: number; body: { errors: ErrorObject[] } } {
  if (err instanceof DomainError) {
    const res = send(err.status, err.toErrorObjects());
    return { status: res.status, body: { ...err.options.body, ...res.body } };
  }
  if (hasZodFastifySchemaValidationErrors(err)) {
    // The query string is `query` in every path, as the item routes' own parsing names it.
    const part = err.validationContext === 'querystring' ? 'query' : (err.validationContext ?? 'body');
    return send(
      400,
      err.validation.flatMap((v) => {
        const path = [part, ...v.instancePath.split('/').filter(Boolean)];
        // An unknown key is named in the path, one error each, like a wrong value.
        const keys = v.keyword === 'unrecognized_keys' ? (v.params as { keys?: unknown }).keys : undefined;
        if (Array.isArray(keys) && keys.length)
          return keys.map((k) => ({
            code: 'VALIDATION_FAILED' as const,
            message: `unknown key ${JSON.stringify(String(k))}`,
            path: [...path, String(k)],
            extensions: { reason: v.keyword },
          }));
        return [
          {
            code: 'VALIDATION_FAILED' as const,
            message: v.message ?? 'invalid value',
            path,
            extensions: { reason: v.keyword },
          },
        ];
      }),
    );
  }
  if (err.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || err.name === 'SyntaxError') {
    return send(400, [
      { code: 'VALIDATION_FAILED', message: `malformed JSON body: ${err.message}`, path: ['body'], extensions: {} },
    ]);
  }
  const unique = uniqueViolation(err);
  if (unique) return send(409, [unique]);
  const status = err.statusCode ?? 500;
  if (status >= 400 && status < 500) {
    return send(status, [
      { code: 'VALIDATION_FAILED', message: err.message, path: [], extensions: { reason: err.code } },
    ]);
  }
  return send(500, [{ code: 'INTERNAL', message: 'internal error', path: [], extensions: {} }]);
}

/**
 * A unique index refused a value (PostgreSQL 23505): for an item field the index is on `data -> '<field>'`, which
 * names the field. The offending value itself is never echoed (it may be personal data).
 */
function uniqueViolation(err: unknown): ErrorObject | null {
  const e = err as { code?: unknown; detail?: unknown };
  if (e.code !== '23505') return null;
  const field = typeof e.detail === 'string' ? /data -> '([A-Za-z0-9_]+)'/.exec(e.detail)?.[1] : undefined;
  return {
    code: 'CONFLICT',
    message: field ? `another item already has this ${field}` : 'a unique value is already taken',
    path: field ? [field] : [],
    extensions: { reason: 'unique' },
  };
}
