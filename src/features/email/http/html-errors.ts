import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { DomainError } from '../../../kernel/http/errors.ts';
import { errorPage, sendPage } from './unsubscribe-page.ts';

/** What a failure would have answered as JSON: status, code, words a person can read. */
function failureOf(err: FastifyError): { status: number; code: string; message: string } {
  if (err instanceof DomainError) return { status: err.status, code: err.code, message: err.message };
  if (hasZodFastifySchemaValidationErrors(err))
    return { status: 400, code: 'VALIDATION_FAILED', message: 'this link is incomplete or damaged' };
  const status = err.statusCode ?? 500;
  if (status >= 400 && status < 500) return { status, code: 'VALIDATION_FAILED', message: 'this request is not valid' };
  return { status: 500, code: 'INTERNAL', message: 'something went wrong on our side; try again later' };
}

/**
 * The error handler of the routes a browser opens (the unsubscribe page): the failure as an HTML page with the
 * status and code the JSON envelope would carry, instead of JSON a person cannot read.
 */
export function htmlErrors(err: FastifyError, req: FastifyRequest, reply: FastifyReply) {
  const f = failureOf(err);
  if (f.status >= 500 && !(err instanceof DomainError)) req.log.error({ err }, 'request failed');
  if (err instanceof DomainError && err.options.headers) void reply.headers(err.options.headers);
  return sendPage(reply, f.status, errorPage(f.status, f.code, f.message));
}
