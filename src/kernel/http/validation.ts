import type { FastifySchemaCompiler } from 'fastify';
import { validatorCompiler } from 'fastify-type-provider-zod';
import type { $ZodType } from 'zod/v4/core';
import { RefusedInput } from './kernel.errors.ts';

const PARTS = new Map([
  ['body', 'body'],
  ['querystring', 'query'],
  ['params', 'params'],
  ['headers', 'headers'],
]);

/**
 * The zod validator of every route, where a schema that throws refuses the input instead of failing the request:
 * zod runs refinements even on a value that already failed its checks (an over-long string, a malformed URL), and a
 * refinement that throws there (`new URL` on what is not an address) answered 500 to bad input. Schemas should
 * not throw (their size checks abort first); this keeps one that does at 400.
 */
export const guardedValidatorCompiler: FastifySchemaCompiler<$ZodType> = (route) => {
  const validate = validatorCompiler(route);
  const part = PARTS.get(route.httpPart ?? 'body') ?? 'body';
  return (data) => {
    try {
      return validate(data);
    } catch {
      return {
        error: new RefusedInput({ message: `the ${part} could not be checked`, path: [part], reason: 'unchecked' }),
      };
    }
  };
};
