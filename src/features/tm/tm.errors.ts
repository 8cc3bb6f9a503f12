import { defineError } from '../../kernel/http/errors.ts';

/** The entry does not exist on the site (or was deleted); entries of other sites are never found. */
export const TmEntryNotFound = defineError<{ entryId: string }>(
  'NOT_FOUND',
  'not_found',
  (d) => `translation-memory entry ${d.entryId} not found`,
);

/** Another entry of the language pair already has this (normalised) source. */
export const TmEntryExists = defineError<{ entryId: string }>(
  'CONFLICT',
  'conflict',
  (d) => `entry ${d.entryId} already has this source for the language pair`,
  () => ({ path: ['source'], extensions: { reason: 'unique' } }),
);

/** The glossary term does not exist on the site. */
export const GlossaryTermNotFound = defineError<{ termId: string }>(
  'NOT_FOUND',
  'not_found',
  (d) => `glossary term ${d.termId} not found`,
);

/** Terms are unique per language pair and normalised term. */
export const GlossaryTermExists = defineError<{ termId: string }>(
  'CONFLICT',
  'conflict',
  (d) => `glossary term ${d.termId} already has this term for the language pair`,
  () => ({ path: ['term'], extensions: { reason: 'unique' } }),
);

/** No memory match and no translation provider configured (SVC_TRANSLATE_PROVIDER unset). */
export const TranslationProviderUnavailable = defineError(
  'TRANSLATION_PROVIDER_UNAVAILABLE',
  'unavailable',
  () => 'no translation-memory match and no translation provider is configured',
);

/** The translation provider refused, failed, timed out or answered something unreadable. */
export const TranslationProviderFailed = defineError<{ provider: string; reason: string; message: string }>(
  'TRANSLATION_PROVIDER_FAILED',
  'bad_gateway',
  (d) => `translation provider ${d.provider} failed: ${d.message}`,
  (d) => ({ extensions: { provider: d.provider, reason: d.reason } }),
);

/** The TMX document is not well-formed XML, declares a DOCTYPE or entities, or is not TMX. */
export const TmxInvalid = defineError<{ message: string; reason: string; line?: number; column?: number }>(
  'TMX_INVALID',
  'invalid',
  (d) => (d.line !== undefined ? `TMX line ${d.line}: ${d.message}` : `TMX: ${d.message}`),
  (d) => ({
    path: ['body'],
    extensions: {
      reason: d.reason,
      ...(d.line !== undefined ? { line: d.line } : {}),
      ...(d.column !== undefined ? { column: d.column } : {}),
    },
  }),
);

/** The TMX document is larger than the import cap. */
export const TmxTooLarge = defineError<{ maxBytes: number }>(
  'TMX_TOO_LARGE',
  'too_large',
  (d) => `a TMX import is at most ${d.maxBytes} bytes`,
  (d) => ({ path: ['body'], extensions: { maxBytes: d.maxBytes } }),
);

/** The entry's stream holds another source now (its source was edited meanwhile): the write is not applied. */
export const TmEntryMoved = defineError<{ entryId: string }>(
  'CONFLICT',
  'conflict',
  (d) => `entry ${d.entryId} now holds another source; retry`,
  () => ({ extensions: { reason: 'moved' } }),
);

/** A language tag of the right form that is still no language tag (e.g. a malformed extension). */
export const InvalidLanguage = defineError<{ tag: string }>(
  'VALIDATION_FAILED',
  'invalid',
  (d) => `${JSON.stringify(d.tag)} is not a language tag`,
  () => ({ extensions: { reason: 'language' } }),
);
