import { inspectJson } from '../../../platform/http/input-guard.ts';
import { RefusedInput } from '../../../kernel/http/kernel.errors.ts';
import { FORM_LIMITS } from '../upload-form.ts';
import { MultipartFieldInvalid } from '../upload-form.errors.ts';
import { FileValues } from './files.schemas.ts';

/** Fields a multipart upload may carry besides its files, each at most once (`tags` once per tag). */
const SINGLE = new Set(['title', 'description', 'folder', 'focal_point']);

/**
 * The multipart body of POST /api/v1/files as the OpenAPI document shows it (its fields are text: `tags` is the
 * field repeated, one tag each; `focal_point` is JSON text). The values apply to every file of the request.
 */
export const MultipartBody = {
  type: 'object',
  required: ['file'],
  additionalProperties: false,
  properties: {
    file: {
      type: 'array',
      minItems: 1,
      maxItems: FORM_LIMITS.files,
      items: { type: 'string', format: 'binary' },
      description:
        "The files, one part each, named `file`; the part's filename and Content-Type are the declared name and type the upload guard checks. Several files are created together or not at all.",
    },
    title: { type: 'string', maxLength: 300 },
    description: { type: 'string', maxLength: 10_000 },
    tags: {
      type: 'array',
      maxItems: 50,
      items: { type: 'string', minLength: 1, maxLength: 100 },
      description: 'The field repeated, one tag each (`tags=summer`, `tags=beach`).',
    },
    folder: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$', description: "A folder's id; empty: none." },
    focal_point: {
      type: 'string',
      contentMediaType: 'application/json',
      description: 'JSON text `{"x":0.5,"y":0.3}` (each 0–1); empty: none.',
    },
  },
} as const;

/** The file record's values from a multipart body's fields, checked as the JSON bodies are (400 on the field). */
export function formValues(fields: Map<string, string[]>): FileValues {
  for (const [name, values] of fields) {
    // The edge's rules for JSON bodies: no NUL, no lone surrogates (no JSON column takes them).
    for (const value of values) {
      const bad = inspectJson(value, ['body', name]);
      if (bad) throw new RefusedInput(bad);
    }
    if (name === 'tags') continue;
    if (!SINGLE.has(name)) throw new MultipartFieldInvalid({ field: name, problem: 'is not a field of a file record' });
    if (values.length > 1) throw new MultipartFieldInvalid({ field: name, problem: 'is given more than once' });
  }
  const one = (name: string) => fields.get(name)?.[0];
  const raw = new Map<string, unknown>();
  for (const name of ['title', 'description'] as const) if (one(name) !== undefined) raw.set(name, one(name));
  const tags = fields.get('tags');
  if (tags) raw.set('tags', tags);
  const folder = one('folder');
  if (folder !== undefined) raw.set('folder', folder === '' ? null : folder);
  const focal = one('focal_point');
  if (focal !== undefined) raw.set('focal_point', focal === '' ? null : parseJson('focal_point', focal));
  const parsed = FileValues.safeParse(Object.fromEntries(raw));
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new MultipartFieldInvalid({
      field: String(issue.path[0] ?? 'body'),
      problem: `is not valid: ${issue.message}`,
    });
  }
  return parsed.data;
}

function parseJson(field: string, text: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch {
    throw new MultipartFieldInvalid({ field, problem: 'is not JSON text' });
  }
  const bad = inspectJson(value, ['body', field]);
  if (bad) throw new RefusedInput(bad);
  return value;
}
