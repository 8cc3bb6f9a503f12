import { defineError } from '../../kernel/http/errors.ts';

/** A rebuild names a projection the engine does not run. */
export const ProjectionNotFound = defineError<{ name: string }>(
  'NOT_FOUND',
  'not_found',
  (d) => `projection ${d.name} not found`,
  () => ({ path: ['name'] }),
);
