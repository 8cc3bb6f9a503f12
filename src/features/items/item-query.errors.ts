import { defineError } from '../../kernel/http/errors.ts';

/** A query parameter of an item read is malformed; the message says what it takes. */
export const InvalidQueryParameter = defineError<{ key: string; message: string }>(
  'VALIDATION_FAILED',
  'invalid',
  (d) => d.message,
  (d) => ({ path: ['query', d.key] }),
);

/** JSON in a query parameter that the input guard refuses (too deep, too large, prototype names, …). */
export const UnsafeQueryValue = defineError<{ path: string[]; message: string; reason: string }>(
  'VALIDATION_FAILED',
  'invalid',
  (d) => d.message,
  (d) => ({ path: d.path, extensions: { reason: d.reason } }),
);

/** An item read header (X-Svc-Locale, X-Svc-Draft) is malformed. */
export const InvalidReadHeader = defineError<{ header: string; message: string }>(
  'VALIDATION_FAILED',
  'invalid',
  (d) => d.message,
  (d) => ({ path: ['headers', d.header] }),
);
