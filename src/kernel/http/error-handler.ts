import type { FastifyError, FastifyInstance } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { DomainError, type ErrorObject } from './errors.ts';

const send = (status: number, errors: ErrorObject[]) => ({ status, body: { errors } });

/** One place turns every failure into the spec's error envelope; nothing unexpected leaks its detail. */
export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, req, reply) => {
    const { status, body } = toResponse(err);
    if (status >= 500) req.log.error({ err }, 'request failed');
    return reply.status(status).send(body);
  });
  app.setNotFoundHandler((req, reply) =>
    reply.status(404).send({ errors: [{ code: 'NOT_FOUND', message: 'not found', path: [], extensions: {} }] }),
  );
}

function toResponse(err: FastifyError): { status: number; body: { errors: ErrorObject[] } } {
  if (err instanceof DomainError) return send(err.status, err.toErrorObjects());
  if (hasZodFastifySchemaValidationErrors(err)) {
    const part = err.validationContext ?? 'body';
    return send(
      400,
      err.validation.map((v) => ({
        code: 'VALIDATION_FAILED',
        message: v.message ?? 'invalid value',
        path: [part, ...v.instancePath.split('/').filter(Boolean)],
        extensions: { reason: v.keyword },
      })),
    );
  }
  if (err.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || err.name === 'SyntaxError') {
    return send(400, [
      { code: 'VALIDATION_FAILED', message: `malformed JSON body: ${err.message}`, path: ['body'], extensions: {} },
    ]);
  }
  const status = err.statusCode ?? 500;
  if (status >= 400 && status < 500) {
    return send(status, [
      { code: 'VALIDATION_FAILED', message: err.message, path: [], extensions: { reason: err.code } },
    ]);
  }
  return send(500, [{ code: 'INTERNAL', message: 'internal error', path: [], extensions: {} }]);
}
