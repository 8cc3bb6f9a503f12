/** One operation of the published OpenAPI document: what the fuzzer calls. */
export interface Operation {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** The OpenAPI path template, e.g. `/api/v1/items/{collection}/{id}`. */
  template: string;
  params: string[];
  body: JsonSchema | null;
  /** The multipart/form-data body, when the operation also takes one (file uploads). */
  multipart?: JsonSchema | null;
  /** Some answer is documented as an HTML page (the unsubscribe page): those answers are outside the envelope. */
  html: boolean;
}

/** The part of JSON Schema the example builder reads. */
export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  enum?: unknown[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  format?: string;
  minimum?: number;
  minLength?: number;
  pattern?: string;
  contentMediaType?: string;
  default?: unknown;
  const?: unknown;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

/** Every method + path template of the document, in its order. */
export function operationsOf(doc: { paths: Record<string, Record<string, unknown>> }): Operation[] {
  const out: Operation[] = [];
  for (const [template, item] of Object.entries(doc.paths)) {
    const params = [...template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
    for (const m of METHODS) {
      const op = Object.hasOwn(item, m)
        ? (item[m] as {
            requestBody?: { content?: Record<string, { schema?: JsonSchema }> };
            responses?: Record<string, { content?: Record<string, unknown> }>;
          })
        : null;
      if (!op) continue;
      const body = op.requestBody?.content?.['application/json']?.schema ?? null;
      const multipart = op.requestBody?.content?.['multipart/form-data']?.schema ?? null;
      const html = Object.values(op.responses ?? {}).some((r) => r.content && Object.hasOwn(r.content, 'text/html'));
      out.push({ method: m.toUpperCase() as Operation['method'], template, params, body, multipart, html });
    }
  }
  return out;
}

function stringExample(s: JsonSchema, name: string): string {
  if (s.format === 'email' || name.toLowerCase().includes('email')) return 'fuzz@example.com';
  if (s.format === 'date-time') return '2030-01-01T00:00:00.000Z';
  if (s.format === 'uri' || s.format === 'url') return 'https://example.com/x';
  if (s.format === 'uuid') return '00000000-0000-4000-8000-000000000000';
  return 'x'.repeat(Math.max(1, s.minLength ?? 1)).replace(/^x/, 'a');
}

/** A plausible value of a schema (required properties only), the base every mutation starts from. */
export function exampleOf(s: JsonSchema | undefined, name = '', depth = 0): unknown {
  if (!s || depth > 6) return null;
  if (s.const !== undefined) return s.const;
  if (s.enum?.length) return s.enum[0];
  if (s.default !== undefined) return s.default;
  const alt = s.anyOf ?? s.oneOf;
  if (alt?.length) return exampleOf(alt.find((a) => a.type !== 'null') ?? alt[0], name, depth + 1);
  if (s.allOf?.length) return exampleOf(s.allOf[0], name, depth + 1);
  const type = Array.isArray(s.type) ? s.type.find((x) => x !== 'null') : s.type;
  switch (type) {
    case 'object': {
      const out = new Map<string, unknown>();
      for (const key of s.required ?? []) out.set(key, exampleOf(s.properties?.[key], key, depth + 1));
      return Object.fromEntries(out);
    }
    case 'array':
      return [];
    case 'string':
      return stringExample(s, name);
    case 'integer':
    case 'number':
      return Math.max(1, s.minimum ?? 1);
    case 'boolean':
      return true;
    default:
      return s.properties ? exampleOf({ ...s, type: 'object' }, name, depth + 1) : 'a';
  }
}
