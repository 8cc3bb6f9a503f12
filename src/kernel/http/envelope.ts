import { z } from 'zod';
import { errorCatalogue, kindStatus, type ErrorCode } from './errors.ts';

/**
 * The spec's success envelope `{ data }`. Response schemas are also the serializer: a key the schema does not
 * name is dropped and a value of another type fails the answer, so a schema describes what the handler returns.
 */
export const dataEnvelope = <T extends z.ZodType>(data: T, description = 'Success') =>
  z.object({ data }).describe(description);

/**
 * `{ data: [...], meta }`: a list with the meta of its paging (docs/decisions.md, "List metadata"): a list that takes
 * `offset` answers total, limit, offset; one paged by `page` total, page, pageSize; the cursor list limit, next; a
 * list without paging total (`TotalMeta`). test/http/list-meta.int.test.ts holds every list to it.
 */
export const listEnvelope = <T extends z.ZodType, M extends z.ZodType>(item: T, meta: M, description = 'Success') =>
  z.object({ data: z.array(item), meta }).describe(description);

/** The meta of a list answered whole, without paging (docs/decisions.md, "List metadata"). */
export const TotalMeta = z.object({ total: z.number().int() });

/** A list answered whole: `{ data, meta: { total } }`, the shape `listEnvelope(item, TotalMeta)` declares. */
export const wholeList = <T>(data: T[]) => ({ data, meta: { total: data.length } });

/** `{ data, meta }` with meta keys the route chooses (e.g. mainDiverged of a version promote). */
export const metaEnvelope = <T extends z.ZodType, M extends z.ZodType>(data: T, meta: M, description = 'Success') =>
  z.object({ data, meta }).describe(description);

/** Paging meta of item lists: total (meta=total_count), filter_count, limit, offset. */
export const ItemListMeta = z.object({
  total: z.number().int().optional(),
  filter_count: z.number().int().optional(),
  limit: z.number().int(),
  offset: z.number().int(),
});

/** An answer without a body (204): handlers `send()` nothing, and the document shows no content. */
export const NoContent = z.never().optional();

/** A record whose keys are user-defined (item values, layout configuration): every key is kept. */
export const OpenRecord = z.record(z.string(), z.unknown());

/** One entry of `errors`. `extensions` carries detail such as `reason`. */
export const ErrorObjectSchema = z.object({
  code: z.string(),
  message: z.string(),
  path: z.array(z.string()),
  extensions: z.record(z.string(), z.unknown()),
});

/** The spec's failure envelope; a few failures add top-level keys (e.g. `dependents` of DEPENDENT_RECORDS_EXIST). */
export const ErrorEnvelope = z.looseObject({ errors: z.array(ErrorObjectSchema) });

/**
 * Codes that can arrive with a status: the declared codes of that status, plus VALIDATION_FAILED on every 4xx
 * (it is the code of framework refusals such as 413 and of the 422 answers of issuers and releases).
 */
export function codesWithStatus(status: number): ErrorCode[] {
  const { codes: catalogue } = errorCatalogue();
  const codes = new Set([...catalogue].filter(([, kind]) => kindStatus(kind) === status).map(([c]) => c));
  if (status >= 400 && status < 500) codes.add('VALIDATION_FAILED');
  return [...codes].sort();
}

const described: Record<number, string> = {
  400: 'Invalid input',
  401: 'Missing, invalid or expired credentials',
  403: 'Not allowed',
  404: 'Not found',
  409: 'Conflict',
  413: 'Too large',
  422: 'Unprocessable input',
  429: 'Too many requests',
  500: 'Internal error',
  502: 'The upstream service failed',
  503: 'Unavailable',
};

const byStatus = new Map<number, z.ZodType>();

/**
 * The failure envelope of one status, with `code` narrowed to the codes that status carries. One schema per status,
 * named `Error<status>` among the document's components.
 */
export function errorEnvelope(status: number): z.ZodType {
  const known = byStatus.get(status);
  if (known) return known;
  const codes = codesWithStatus(status);
  const code = codes.length ? z.enum(codes as [ErrorCode, ...ErrorCode[]]) : z.string();
  const schema = z
    .looseObject({ errors: z.array(ErrorObjectSchema.extend({ code })) })
    .meta({ id: `Error${status}`, description: described[status] ?? 'Failure' });
  byStatus.set(status, schema);
  return schema;
}
