import { defineError } from '../../kernel/http/errors.ts';

/** No file record with this id that the caller may read. */
export const FileNotFound = defineError<{ id: string }>(
  'RECORD_NOT_FOUND',
  'not_found',
  (d) => `file ${d.id} not found`,
  () => ({ path: ['id'] }),
);

/** Not a file the site delivers publicly (unknown, or no published item uses it): one answer for all. */
export const FileNotDelivered = defineError('NOT_FOUND', 'not_found', () => 'not found');
