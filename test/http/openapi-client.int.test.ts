import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import openapiTS, { astToString, type OpenAPI3 } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../setup/app.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
let t: TestApp;
let token: string;
let dir: string;
let doc: OpenAPI3;

beforeAll(async () => {
  t = await createTestApp();
  token = await t.setup();
  const res = await t.call({ method: 'GET', url: '/api/v1/openapi.json' });
  expect(res.statusCode).toBe(200);
  doc = res.json();
  // Inside the project, so that the client's `import … from 'openapi-fetch'` resolves to the installed package.
  const cache = path.join(ROOT, 'node_modules', '.cache');
  fs.mkdirSync(cache, { recursive: true });
  dir = fs.mkdtempSync(path.join(cache, 'svc-openapi-client-'));
  fs.writeFileSync(path.join(dir, 'schema.ts'), astToString(await openapiTS(doc)));
}, 120_000);
afterAll(async () => {
  await t?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/** A small client on the generated `paths` types: a typed list of items and a typed collection create. */
const CLIENT = `
import type { paths } from './schema.ts';

type Json<T> = T extends { content: { 'application/json': infer B } } ? B : never;
type Send = (method: string, url: string, body?: unknown) => Promise<unknown>;

type ListItems = paths['/api/v1/items/{collection}']['get'];
type ItemPage = Json<ListItems['responses'][200]>;
type CreateCollection = paths['/api/v1/collections']['post'];
export type NewCollection = Json<CreateCollection['requestBody']>;
type Created = Json<CreateCollection['responses'][201]>;
export type NotFoundCode = Json<ListItems['responses'][404]>['errors'][number]['code'];

export async function listItems(send: Send, path: ListItems['parameters']['path']): Promise<ItemPage> {
  return (await send('GET', '/api/v1/items/' + encodeURIComponent(path.collection))) as ItemPage;
}

export async function createCollection(send: Send, body: NewCollection): Promise<Created> {
  return (await send('POST', '/api/v1/collections', body)) as Created;
}

export async function titles(send: Send): Promise<string[]> {
  await createCollection(send, { name: 'articles', displayName: 'Articles', singleton: false });
  const page = await listItems(send, { collection: 'articles' });
  const total: number | undefined = page.meta?.total;
  const rows = Array.isArray(page.data) ? page.data : page.data ? [page.data] : [];
  const missing: NotFoundCode = 'RECORD_NOT_FOUND';
  return [...rows.map((r) => String(r.title)), String(total), missing];
}
`;

/**
 * List calls through openapi-fetch on the generated `paths`, with no cast: a JSON filter, sort, fields and paging
 * with the default serialiser, and the bracket form (`filter[state][_eq]=`) through a serialiser of nested objects.
 */
const FETCH_CLIENT = `
import createClient from 'openapi-fetch';
import type { paths } from './schema.ts';

export function client(fetch: (req: Request) => Promise<Response>, token: string) {
  return createClient<paths>({
    baseUrl: 'http://svc.test',
    fetch,
    headers: { authorization: 'Bearer ' + token, 'x-svc-site': 'main' },
  });
}
type Client = ReturnType<typeof client>;

/** filter[a][b][_op]=v for nested objects: the item filter's bracket form. */
function brackets(query: Record<string, unknown>): string {
  const out: string[] = [];
  const walk = (key: string, v: unknown): void => {
    if (v === undefined) return;
    if (v !== null && typeof v === 'object' && !Array.isArray(v))
      for (const [k, inner] of Object.entries(v)) walk(key + '[' + k + ']', inner);
    else out.push(encodeURIComponent(key) + '=' + encodeURIComponent(Array.isArray(v) ? v.join(',') : String(v)));
  };
  for (const [k, v] of Object.entries(query)) walk(k, v);
  return out.join('&');
}

export async function publishedTitles(c: Client): Promise<{ titles: string[]; total: number | undefined }> {
  const { data, error } = await c.GET('/api/v1/items/{collection}', {
    params: {
      path: { collection: 'articles' },
      query: { filter: JSON.stringify({ state: { _eq: 'published' } }), sort: '-title', fields: 'id,title', limit: 10 },
    },
  });
  if (error) throw new Error(error.errors[0]?.message);
  const rows = Array.isArray(data.data) ? data.data : [];
  return { titles: rows.map((r) => String(r.title)), total: data.meta?.total };
}

export async function draftTitles(c: Client): Promise<string[]> {
  const { data, error } = await c.GET('/api/v1/items/{collection}', {
    params: {
      path: { collection: 'articles' },
      query: { filter: { state: { _eq: 'draft' } }, sort: 'title', fields: 'title', offset: 0, meta: 'none' },
    },
    querySerializer: brackets,
  });
  if (error) throw new Error(error.errors[0]?.message);
  return (Array.isArray(data.data) ? data.data : []).map((r) => String(r.title));
}

export async function fileNames(c: Client): Promise<number> {
  const { data, error } = await c.GET('/api/v1/files', {
    params: { query: { fields: 'id,filename,title', sort: '-created_at', page: 1, limit: 5 } },
  });
  if (error) throw new Error(error.errors[0]?.message);
  return Array.isArray(data.data) ? data.data.length : -1;
}
`;

/** Type-checks `main` with the generated types beside it (strict, no emit) and returns the messages. */
function diagnostics(main: string): string[] {
  const file = path.join(dir, 'client.ts');
  fs.writeFileSync(file, main);
  const program = ts.createProgram([file], {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    allowImportingTsExtensions: true,
    lib: ['lib.es2022.d.ts', 'lib.dom.d.ts', 'lib.dom.iterable.d.ts'],
    types: [],
  });
  return ts
    .getPreEmitDiagnostics(program)
    .map(
      (d) => `${d.file ? path.basename(d.file.fileName) : ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`,
    );
}

/** openapi-fetch's `fetch`, answered by the app in process (app.inject). */
async function injected(req: Request): Promise<Response> {
  const url = new URL(req.url);
  const res = await t.app.inject({
    method: req.method as 'GET',
    url: url.pathname + url.search,
    headers: Object.fromEntries(req.headers),
    ...(req.method === 'GET' ? {} : { payload: await req.text() }),
  });
  const headers = new Headers();
  for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) headers.set(k, String(v));
  return new Response(res.body, { status: res.statusCode, headers });
}

describe('GET /api/v1/openapi.json', () => {
  it('gives every operation a unique operationId, a summary, tags and a security requirement', () => {
    const ids = new Set<string>();
    for (const item of Object.values(doc.paths ?? {}))
      for (const op of Object.values(item as Record<string, { operationId?: string; summary?: string }>)) {
        const o = op as { operationId?: string; summary?: string; tags?: string[]; security?: unknown[] };
        expect(o.operationId).toBeTruthy();
        expect(ids.has(o.operationId!)).toBe(false);
        ids.add(o.operationId!);
        expect(o.summary).toBeTruthy();
        expect(o.tags?.length).toBeGreaterThan(0);
        expect(Array.isArray(o.security)).toBe(true);
      }
    expect(ids.size).toBeGreaterThan(50);
  });

  it('generates types that a strict client compiles against without a diagnostic', () => {
    expect(diagnostics(CLIENT)).toEqual([]);
  }, 120_000);

  it('compiles list calls with filters, sort and fields through openapi-fetch without a cast', () => {
    expect(diagnostics(FETCH_CLIENT)).toEqual([]);
  }, 120_000);

  it('sends those list calls to the service and reads the typed answers', async () => {
    const ok = async (url: string, payload: object) => {
      const r = await t.call({ method: 'POST', url, payload, as: token, site: 'main' });
      expect(r.statusCode, url + r.body).toBe(201);
    };
    await ok('/api/v1/collections', { name: 'articles' });
    await ok('/api/v1/fields/articles', { field: 'title', type: 'string' });
    await ok('/api/v1/fields/articles', { field: 'state', type: 'string' });
    for (const [title, state] of [
      ['A', 'published'],
      ['B', 'draft'],
      ['C', 'published'],
      ['D', 'draft'],
    ])
      await ok('/api/v1/items/articles', { title, state });
    const file = path.join(dir, 'fetch-client.mjs');
    fs.writeFileSync(
      file,
      ts.transpileModule(FETCH_CLIENT, {
        compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
      }).outputText,
    );
    const mod = (await import(pathToFileURL(file).href)) as {
      client: (f: (r: Request) => Promise<Response>, token: string) => unknown;
      publishedTitles: (c: unknown) => Promise<{ titles: string[]; total: number | undefined }>;
      draftTitles: (c: unknown) => Promise<string[]>;
      fileNames: (c: unknown) => Promise<number>;
    };
    const c = mod.client(injected, token);
    expect(await mod.publishedTitles(c)).toEqual({ titles: ['C', 'A'], total: 2 });
    expect(await mod.draftTitles(c)).toEqual(['B', 'D']);
    expect(await mod.fileNames(c)).toBe(0);
  });

  it('makes the compiler refuse a client that sends a wrong body or expects an unknown error code', () => {
    const wrong = `${CLIENT}
export const badBody: NewCollection = { name: 42 };
export const badCode: NotFoundCode = 'NO_SUCH_CODE';
`;
    const found = diagnostics(wrong);
    expect(found.some((m) => m.includes("'number' is not assignable to type 'string'"))).toBe(true);
    expect(found.some((m) => m.includes('"NO_SUCH_CODE"'))).toBe(true);
  }, 120_000);
});
