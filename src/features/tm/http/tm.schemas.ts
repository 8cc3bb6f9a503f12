import { z } from 'zod';
import { ENTRY_SOURCES, CONTROL_CHARS, LANGUAGE_TAG, MAX_TEXT } from '../../../contracts/tm/tm.types.ts';
import { pathId } from '../../../kernel/http/path-params.ts';

/** A language tag (BCP 47-ish: en, pt-BR, zh-Hans); stored in its canonical case. */
export const Lang = z.string().min(2).max(35).regex(LANGUAGE_TAG, 'a language tag such as en or pt-BR');
const text = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .refine((s) => s.trim().length > 0, 'must not be blank')
    .refine((s) => !CONTROL_CHARS.test(s), 'must not contain control characters');
const Text = text(MAX_TEXT);
const Quality = z.number().int().min(0).max(100);
const EntrySourceSchema = z.enum(ENTRY_SOURCES);

/** A translation-memory entry. */
export const TmEntryBody = z
  .object({
    id: z.string(),
    sourceLang: z.string(),
    targetLang: z.string(),
    source: z.string(),
    target: z.string(),
    quality: z.number().int(),
    entrySource: EntrySourceSchema,
    createdBy: z.string(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'TmEntry' });

/** A lookup's match: the entry and its score against the query (0–100). */
export const TmMatchBody = TmEntryBody.extend({ score: z.number().int() }).meta({ id: 'TmMatch' });

/** POST /tm: upsert by language pair and normalised source. */
export const EntryUpsertBody = z
  .object({
    sourceLang: Lang,
    targetLang: Lang,
    source: Text,
    target: Text,
    quality: Quality.optional(),
    entrySource: EntrySourceSchema.optional(),
  })
  .strict();

/** PATCH /tm/:id. */
export const EntryPatchBody = z
  .object({ source: Text, target: Text, quality: Quality, entrySource: EntrySourceSchema })
  .partial()
  .strict();

const Limit = z.coerce.number().int().min(1).max(200).default(25);
const Offset = z.coerce.number().int().min(0).max(1_000_000).default(0);

export const EntryListQuery = z
  .object({
    source: Lang.optional(),
    target: Lang.optional(),
    entrySource: EntrySourceSchema.optional(),
    limit: Limit,
    offset: Offset,
  })
  .strict();
export const ListMeta = z.object({ total: z.number().int(), limit: z.number().int(), offset: z.number().int() });
export const IdParams = z.object({ id: pathId(64) });

export const LookupBody = z
  .object({
    query: Text,
    sourceLang: Lang,
    targetLang: Lang,
    threshold: z.number().min(0).max(100).optional(),
  })
  .strict();
export const LookupResult = z.object({ match: TmMatchBody.nullable() });

export const TranslateBody = z.object({ text: Text, from: Lang, to: Lang }).strict();
export const TranslateResult = z
  .object({ text: z.string(), source: z.enum(['tm', 'glossary', 'provider']), match: TmMatchBody.optional() })
  .meta({ id: 'TmTranslation' });

/** A glossary term. */
export const GlossaryTermBody = z
  .object({
    id: z.string(),
    sourceLang: z.string(),
    targetLang: z.string(),
    term: z.string(),
    translation: z.string(),
    caseSensitive: z.boolean(),
    createdBy: z.string(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'GlossaryTerm' });

export const TermCreateBody = z
  .object({
    sourceLang: Lang,
    targetLang: Lang,
    term: text(200),
    translation: text(1000),
    caseSensitive: z.boolean().default(false),
  })
  .strict();
export const TermPatchBody = z
  .object({ term: text(200), translation: text(1000), caseSensitive: z.boolean() })
  .partial()
  .strict();
export const TermListQuery = z
  .object({ source: Lang.optional(), target: Lang.optional(), limit: Limit, offset: Offset })
  .strict();

export const ExportQuery = z.object({ source: Lang.optional(), target: Lang.optional() }).strict();
export const ImportResult = z.object({
  imported: z.number().int(),
  updated: z.number().int(),
  skipped: z.number().int(),
});
/** The TMX document an export streams. */
export const TmxDocument = z.any().meta({ description: 'A TMX 1.4b document', format: 'binary' });
