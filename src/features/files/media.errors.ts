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

/** A `media` rule with conditions grants file records that meet them, not raw media or presets (no rows to check). */
export const ConditionalMediaRule = defineError<{ action: string }>(
  'PERMISSION_DENIED',
  'forbidden',
  (d) => `a media:${d.action} rule with conditions applies to file records only`,
);
