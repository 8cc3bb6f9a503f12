import type { FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { DomainError, type ErrorObject } from './errors.ts';

/** 422 VALIDATION_FAILED listing every problem (the spec's status for issuers, releases and configuration). */
export function unprocessable(errors: Omit<ErrorObject, 'code'>[]): DomainError {
  const list = errors.map((e) => ({ code: 'VALIDATION_FAILED' as const, ...e }));
  return new DomainError('VALIDATION_FAILED', list[0]?.message ?? 'invalid input', {
    kind: 'unprocessable',
    errors: list,
  });
}

/**
 * For routes whose body errors are 422: the schema failure fastify attached (route option `attachValidation`),
 * turned into the envelope with paths like the 400 ones; a failure of the path or the query string stays 400.
 */
export function rejectInvalid(req: FastifyRequest): void {
  const err = req.validationError;
  if (!err) return;
  const part = (err as { validationContext?: string }).validationContext ?? 'body';
  // Only a body's problems are 422: a wrong path id or query parameter is the 400 it is on every other route.
  if (part !== 'body') throw err;
  if (!hasZodFastifySchemaValidationErrors(err))
    throw unprocessable([{ message: err.message, path: [part], extensions: {} }]);
  throw unprocessable(
    err.validation.map((v: { message?: string; instancePath: string; keyword: string }) => ({
      message: v.message ?? 'invalid value',
      path: [part, ...v.instancePath.split('/').filter(Boolean)],
      extensions: { reason: v.keyword },
    })),
  );
}
