import type { SiteData } from './fuzz-world.ts';
import { exampleOf, type JsonSchema, type Operation } from './openapi-ops.ts';
import type { Rng } from './prng.ts';

/** One malformed request: the kind names the input for the report. */
export interface FuzzCase {
  kind: string;
  url: string;
  body?: string;
  headers?: Record<string, string>;
  /** An X-Svc-Site value other than the caller's site. */
  site?: string;
}

const MB = 'x'.repeat(1024 * 1024);
/** The longest string each field of a `body:huge-strings` case gets: far past any field's limit. */
const HUGE = 200_000;
/** What all the huge strings of one body add up to at most: under the 1 MiB body limit, so validation runs. */
const HUGE_BUDGET = 960_000;
const deep = (open: string, close: string, inner = '1') => open.repeat(10_000) + inner + close.repeat(10_000);

/** Raw path segments (already URL-encoded where that is the point). */
const PATH_IDS: Record<string, string> = {
  'path:constructor': 'constructor',
  'path:__proto__': '__proto__',
  'path:hasOwnProperty': 'hasOwnProperty',
  'path:valueOf': 'valueOf',
  'path:toString': 'toString',
  'path:300-chars': 'a'.repeat(300),
  'path:percent': '%',
  'path:nul': 'a%00b',
  'path:lone-surrogate': 'a%ED%A0%80b',
};

const QUERIES: Record<string, string> = {
  'query:filter-proto': 'filter[__proto__][fuzzPolluted][_eq]=1',
  'query:filter-constructor': 'filter[constructor][prototype][fuzzPolluted]=1',
  'query:deep-proto': 'deep[__proto__][x][fields]=y',
  'query:sort-constructor': 'sort=constructor',
  'query:fields-proto': 'fields=__proto__,constructor.prototype,hasOwnProperty',
  'query:groupby-proto': 'groupBy=__proto__&aggregate[count]=constructor',
  'query:huge-numbers': 'offset=1e30&page=1e30&limit=1e308',
  'query:neg-zero': 'offset=-0&page=-0&limit=-0',
  'query:nul': 'search=a%00b&filter[title][_eq]=%00&status=%00',
  'query:lone-surrogate': 'search=%ED%A0%80&filter[title][_eq]=%ED%A0%80',
  'query:json-filter-proto': `filter=${encodeURIComponent('{"__proto__":{"fuzzPolluted":{"_eq":1}}}')}`,
  'query:deep-json-filter': `filter=${encodeURIComponent(deep('{"_and":[', ']}', '{}'))}`,
  'query:deep-expansion': `fields=${'author.'.repeat(12)}id,*.*.*.*.*.*.*.*.*&deep[author][deep][author][fields]=*`,
  'query:huge-string': `search=${'y'.repeat(100_000)}`,
};

/** Body mutations, each from the operation's example body and one of its field names. */
const BODIES: Record<string, (base: Record<string, unknown>, field: string) => string> = {
  'body:valid-example': (b) => JSON.stringify(b),
  'body:wrong-type-whole': () => '[[1],"x",42]',
  'body:wrong-type-field': (b, f) => JSON.stringify({ ...b, [f]: typeof b[f] === 'string' ? 12345 : ['x', { y: 1 }] }),
  'body:missing-field': (b, f) => JSON.stringify(Object.fromEntries(Object.entries(b).filter(([k]) => k !== f))),
  'body:extra-field': (b) => JSON.stringify({ ...b, fuzzExtraField: 'x' }),
  'body:nul': (b, f) => JSON.stringify({ ...b, [f]: 'a\u0000b' }),
  'body:lone-surrogate': (b, f) => JSON.stringify({ ...b, [f]: 'a\ud800b' }),
  'body:huge-string': (b, f) => JSON.stringify({ ...b, [f]: MB }),
  'body:huge-number': (b, f) => JSON.stringify({ ...b, [f]: 1e308 }),
  'body:neg-zero': (b, f) => JSON.stringify({ ...b, [f]: 0 }).replace(/:0([,}])/, ':-0$1'),
  'body:deep-array': (b, f) =>
    `${JSON.stringify(b).slice(0, -1)}${Object.keys(b).length ? ',' : ''}"${f}":${deep('[', ']')}}`,
  'body:deep-object': (_b, f) => `{"${f}":${deep('{"a":', '}')}}`,
  'body:proto-key': (b) => `{"__proto__":{"fuzzPolluted":1},${JSON.stringify(b).slice(1)}`.replace(',}', '}'),
  'body:inherited-names': (b) =>
    `{"hasOwnProperty":1,"toString":"x","valueOf":{"a":1},"__defineGetter__":[]${Object.keys(b).length ? ',' : ''}${JSON.stringify(b).slice(1)}`,
  'body:constructor-key': (b, f) =>
    `{"constructor":{"prototype":{"fuzzPolluted":1}},"prototype":{"fuzzPolluted":1},"${f}":{"__proto__":{"fuzzPolluted":1}}${Object.keys(b).length ? ',' : ''}${JSON.stringify(b).slice(1)}`,
};

/**
 * Every string of the schema, optional and nested ones too (a PATCH's keys are all optional, so the example base has
 * none), set to one long text, numbers and booleans as in the example: the fields' length limits must refuse
 * such a body before any work (a refinement reading it, a lookup, a decryption).
 */
export function hugeStringsOf(s: JsonSchema | null | undefined, text: string, depth = 0): unknown {
  if (!s || depth > 6) return text;
  const alt = s.anyOf ?? s.oneOf;
  if (alt?.length) return hugeStringsOf(alt.find((a) => a.type !== 'null') ?? alt[0], text, depth + 1);
  if (s.allOf?.length) return hugeStringsOf(s.allOf[0], text, depth + 1);
  const type = Array.isArray(s.type) ? s.type.find((x) => x !== 'null') : s.type;
  if (type === 'object' || (!type && s.properties)) {
    const out = new Map<string, unknown>();
    for (const [key, sub] of Object.entries(s.properties ?? {})) out.set(key, hugeStringsOf(sub, text, depth + 1));
    return Object.fromEntries(out);
  }
  if (type === 'array') return [hugeStringsOf(s.items, text, depth + 1)];
  if (type === 'string' || s.enum?.some((v) => typeof v === 'string')) return text;
  return exampleOf(s);
}

/** How many strings `hugeStringsOf` writes. */
const countStrings = (v: unknown): number =>
  typeof v === 'string'
    ? 1
    : Array.isArray(v)
      ? v.reduce((n: number, x) => n + countStrings(x), 0)
      : v && typeof v === 'object'
        ? Object.values(v).reduce((n: number, x) => n + countStrings(x), 0)
        : 0;

/** A body of huge strings within the body limit: each as long as the budget allows, 200 000 characters at most. */
export function hugeStringsBody(schema: JsonSchema | null): string {
  const n = Math.max(1, countStrings(hugeStringsOf(schema, 'x')));
  return JSON.stringify(hugeStringsOf(schema, 'x'.repeat(Math.min(HUGE, Math.floor(HUGE_BUDGET / n)))));
}

/**
 * Kinds every caller sends to every operation with a body, over the budget: every string field huge, aimed at the
 * other site's ids (an admin of one site, the integration id of another, answered 500 once).
 */
export const ALWAYS = ['body:huge-strings-foreign'];

/** Header mutations: prototype-named and malformed site ids, oversized and odd tracing ids. */
const HEADERS: Record<string, { site?: string; headers?: Record<string, string> }> = {
  'header:site-__proto__': { site: '__proto__' },
  'header:site-constructor': { site: 'constructor' },
  'header:site-long': { site: 's'.repeat(300) },
  'header:tracing-ids': { headers: { 'x-request-id': 'r'.repeat(8192), 'x-correlation-id': '__proto__ ../../%00' } },
  'header:huge': { headers: { 'x-fuzz-padding': 'h'.repeat(64 * 1024) } },
};

/** A multipart/form-data part: a field, or a file when it has a filename. */
interface Part {
  name: string;
  value: string;
  filename?: string;
  type?: string;
}

/** A multipart body of text parts (the fuzz sends strings), with the boundary it declares. */
function form(parts: Part[], cut = 1): { body: string; headers: Record<string, string> } {
  const boundary = 'fuzzBoundary7MA4YWxkTrZu0gW';
  const text = parts
    .map((p) => {
      const file = p.filename === undefined ? '' : `; filename="${p.filename}"`;
      const type = p.type === undefined ? '' : `Content-Type: ${p.type}\r\n`;
      return `--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"${file}\r\n${type}\r\n${p.value}\r\n`;
    })
    .join('');
  const body = `${text}--${boundary}--\r\n`;
  return {
    body: body.slice(0, Math.ceil(body.length * cut)),
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
  };
}

/** The text fields of a multipart schema with example values, and a small valid text file. */
function formBase(schema: JsonSchema): Part[] {
  const fields = Object.entries(schema.properties ?? {})
    // Plain text fields: one with a pattern (an id) or a content type (JSON text) would make every case invalid.
    .filter(([name, s]) => name !== 'file' && s.type === 'string' && !s.pattern && !s.contentMediaType)
    .map(([name]) => ({ name, value: 'a' }));
  return [...fields, { name: 'file', filename: 'fuzz.csv', type: 'text/csv', value: 'a,b\n1,2\n' }];
}

/** Multipart mutations of operations that take multipart/form-data (file uploads). */
const MULTIPART: Record<string, (base: Part[]) => { body: string; headers: Record<string, string> }> = {
  'multipart:valid': (b) => form(b),
  'multipart:truncated': (b) => form(b, 0.6),
  'multipart:no-boundary': (b) => ({ body: form(b).body, headers: { 'content-type': 'multipart/form-data' } }),
  'multipart:proto-names': (b) =>
    form([
      { name: '__proto__', value: '{"fuzzPolluted":1}' },
      { name: 'constructor', value: 'x' },
      { name: 'hasOwnProperty', filename: 'x.csv', type: 'text/csv', value: 'a' },
      ...b,
    ]),
  'multipart:hostile-filenames': (b) =>
    form([
      ...b,
      { name: 'file', filename: '../../etc/x.csv', type: 'text/csv', value: 'a' },
      { name: 'file', filename: 'a\u0000b.csv', type: 'text/csv', value: 'a' },
      { name: 'file', filename: `${'n'.repeat(10_000)}.csv`, type: 'text/csv', value: 'a' },
    ]),
  'multipart:lying-type': (b) =>
    form([...b, { name: 'file', filename: 'x.png', type: 'image/png', value: '<svg onload=x>' }]),
  'multipart:huge-field': (b) => form([{ name: b[0]!.name, value: 'y'.repeat(200_000) }, ...b]),
  'multipart:many-parts': (b) => form([...Array.from({ length: 40 }, () => ({ name: 'tags', value: 't' })), ...b]),
  'multipart:nul-and-surrogates': (b) =>
    form([...b.map((p) => (p.filename === undefined ? { ...p, value: 'a\u0000\ud800b' } : p))]),
};

const HAS_BODY = new Set(['POST', 'PUT', 'PATCH']);

/** Whether an operation takes a body (the body kinds apply to it). */
export const takesBody = (op: Operation): boolean => HAS_BODY.has(op.method) || op.body !== null;

/** The input kinds that apply to an operation. */
export function kindsOf(op: Operation): string[] {
  const kinds = ['baseline', 'path:foreign-ids', ...Object.keys(QUERIES), ...Object.keys(HEADERS)];
  if (op.params.length) kinds.push(...Object.keys(PATH_IDS));
  if (takesBody(op)) kinds.push(...Object.keys(BODIES), 'body:huge-strings');
  if (op.multipart) kinds.push(...Object.keys(MULTIPART));
  return kinds;
}

/** A valid value of a path parameter, aimed at the given site's data. */
function paramValue(template: string, param: string, d: SiteData): string {
  if (param === 'collection' || param === 'name') return 'articles';
  if (param === 'field') return 'title';
  if (param === 'key') return 'v1';
  if (param === 'site_id') return d.site;
  // The rest-of-path parameter of a wildcard route (documented as `{path}`).
  if (param === '*' || param === 'path') return d.slug;
  if (param === 'permissionId') return 'none';
  const route: Array<[string, string]> = [
    ['/items/', d.item],
    ['/pages/', d.page],
    ['/releases/', d.release],
    ['/users/', d.users[1]!],
    ['/roles/', d.role],
    ['/policies/', d.policy],
    ['/teams/', d.team],
    ['/relations/', d.relation],
  ];
  return route.find(([prefix]) => template.includes(prefix))?.[1] ?? d.users[0]!;
}

function bodyBase(schema: JsonSchema | null): Record<string, unknown> {
  const base = exampleOf(schema ?? undefined);
  return base && typeof base === 'object' && !Array.isArray(base) ? (base as Record<string, unknown>) : {};
}

/** Builds one case of a kind: `own` is the site the caller aims at, `foreign` the other site. */
export function buildCase(op: Operation, kind: string, own: SiteData, foreign: SiteData, rng: Rng): FuzzCase {
  const weirdParam = Object.hasOwn(PATH_IDS, kind) ? rng.pick(op.params) : null;
  const ids = kind === 'path:foreign-ids' || kind === 'body:huge-strings-foreign' ? foreign : own;
  let path = op.template;
  for (const p of op.params) {
    const value = p === weirdParam ? PATH_IDS[kind]! : encodeURIComponent(paramValue(op.template, p, ids));
    path = path.replace(`{${p}}`, p === '*' || p === 'path' ? value.replace(/%2F/g, '/') : value);
  }
  const query = Object.hasOwn(QUERIES, kind) ? `?${QUERIES[kind]}` : '';
  const base = bodyBase(op.body);
  const fields = [...new Set([...Object.keys(base), ...Object.keys(op.body?.properties ?? {})])];
  const field = fields.length ? rng.pick(fields) : 'title';
  const mutate = Object.hasOwn(BODIES, kind) ? BODIES[kind]! : null;
  const huge = kind.startsWith('body:huge-strings') ? hugeStringsBody(op.body) : undefined;
  const body = huge ?? (mutate ? mutate(base, field) : HAS_BODY.has(op.method) ? JSON.stringify(base) : undefined);
  const header = Object.hasOwn(HEADERS, kind) ? HEADERS[kind]! : {};
  if (op.multipart && Object.hasOwn(MULTIPART, kind))
    return { kind, url: path + query, ...MULTIPART[kind]!(formBase(op.multipart)) };
  return { kind, url: path + query, ...(body === undefined ? {} : { body }), ...header };
}
