import { defineError } from '../../kernel/http/errors.ts';

/** No media object under the key (or it was deleted). */
export const MediaNotFound = defineError<{ key: string }>(
  'NOT_FOUND',
  'not_found',
  (d) => `no media object ${d.key}`,
  () => ({ path: ['key'] }),
);

/** The site's public role uploads nothing, whatever its rules grant (upload guard, rule 1). */
export const PublicCannotUpload = defineError(
  'PERMISSION_DENIED',
  'forbidden',
  () => 'the public role cannot upload files',
);
