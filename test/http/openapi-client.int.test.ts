import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import openapiTS, { astToString, type OpenAPI3 } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../setup/app.ts';

let t: TestApp;
let dir: string;
let doc: OpenAPI3;

beforeAll(async () => {
  t = await createTestApp();
  const res = await t.call({ method: 'GET', url: '/api/v1/openapi.json' });
  expect(res.statusCode).toBe(200);
  doc = res.json();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-openapi-client-'));
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
    lib: ['lib.es2022.d.ts'],
    types: [],
  });
  return ts
    .getPreEmitDiagnostics(program)
    .map(
      (d) => `${d.file ? path.basename(d.file.fileName) : ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`,
    );
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
  });

  it('makes the compiler refuse a client that sends a wrong body or expects an unknown error code', () => {
    const wrong = `${CLIENT}
export const badBody: NewCollection = { name: 42 };
export const badCode: NotFoundCode = 'NO_SUCH_CODE';
`;
    const found = diagnostics(wrong);
    expect(found.some((m) => m.includes("'number' is not assignable to type 'string'"))).toBe(true);
    expect(found.some((m) => m.includes('"NO_SUCH_CODE"'))).toBe(true);
  });
});
