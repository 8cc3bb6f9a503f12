import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../setup/app.ts';

interface Parameter {
  name: string;
  in: string;
  style?: string;
  schema?: Record<string, unknown>;
}
type Doc = { paths: Record<string, Record<string, { parameters?: Parameter[] }>> };

let t: TestApp;
let doc: Doc;

beforeAll(async () => {
  t = await createTestApp();
  const res = await t.call({ method: 'GET', url: '/api/v1/openapi.json' });
  expect(res.statusCode).toBe(200);
  doc = res.json();
}, 120_000);
afterAll(() => t?.close());

const queryOf = (url: string, method = 'get') =>
  (doc.paths[url]?.[method]?.parameters ?? []).filter((p) => p.in === 'query');
const namesOf = (url: string) => queryOf(url).map((p) => p.name);

/** A GET route as the source declares it: its address, whether it has a querystring schema, whether it reads one. */
interface DeclaredRoute {
  file: string;
  url: string;
  querystring: boolean;
  readsQuery: boolean;
}

const ROOT = path.resolve(import.meta.dirname, '../..');

function routeFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const at = path.join(dir, e.name);
    if (e.isDirectory()) return routeFiles(at);
    return e.name.endsWith('.routes.ts') ? [at] : [];
  });
}

/** A route address written as a literal, a constant of the file or a template over such constants. */
function urlOf(e: ts.Expression, constants: Map<string, string>): string | undefined {
  if (ts.isStringLiteralLike(e)) return e.text;
  if (ts.isIdentifier(e)) return constants.get(e.text);
  if (!ts.isTemplateExpression(e)) return undefined;
  let out = e.head.text;
  for (const span of e.templateSpans) {
    const part = ts.isIdentifier(span.expression) ? constants.get(span.expression.text) : undefined;
    if (part === undefined) return undefined;
    out += part + span.literal.text;
  }
  return out;
}

/** Every `app.get('/…', { schema: … }, handler)` of the route files, read with the compiler (no regular expressions). */
function declaredGetRoutes(): DeclaredRoute[] {
  const out: DeclaredRoute[] = [];
  for (const file of routeFiles(path.join(ROOT, 'src'))) {
    const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, true);
    const constants = new Map<string, string>();
    for (const statement of source.statements)
      if (ts.isVariableStatement(statement))
        for (const d of statement.declarationList.declarations)
          if (ts.isIdentifier(d.name) && d.initializer && ts.isStringLiteralLike(d.initializer))
            constants.set(d.name.text, d.initializer.text);
    const visit = (node: ts.Node): void => {
      if (
        ts.isCallExpression(node) &&
        ts.isPropertyAccessExpression(node.expression) &&
        node.expression.name.text === 'get' &&
        node.arguments.length >= 2 &&
        urlOf(node.arguments[0]!, constants)?.startsWith('/')
      ) {
        const url = urlOf(node.arguments[0]!, constants)!;
        const options = node.arguments.length === 3 ? node.arguments[1]! : undefined;
        const handler = node.arguments[node.arguments.length - 1]!;
        const schema =
          options && ts.isObjectLiteralExpression(options)
            ? options.properties.find((p) => p.name?.getText() === 'schema')
            : undefined;
        const schemaText = schema?.getText() ?? '';
        out.push({
          file: path.relative(ROOT, file),
          url,
          querystring: /\bquerystring\s*:/.test(schemaText),
          readsQuery: /\b(req|request)\.query\b/.test(handler.getText()),
        });
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return out;
}

/** WebSocket upgrades, which OpenAPI 3 does not describe (their SSE twins are documented). */
const WEBSOCKETS = new Set(['/api/v1/realtime/ws']);

const openApiPath = (url: string) => url.replace(/:([A-Za-z0-9_]+)/g, '{$1}').replace(/\/\*$/, '/{path}');

describe('GET /api/v1/openapi.json', () => {
  it('declares the item list parameters on GET /items/{collection} and GET /files', () => {
    const list = [
      'fields',
      'filter',
      'search',
      'sort',
      'limit',
      'offset',
      'page',
      'after',
      'meta',
      'aggregate',
      'groupBy',
      'deep',
      'asOf',
      'withDeleted',
    ];
    expect(namesOf('/api/v1/items/{collection}').sort()).toEqual([...list].sort());
    expect(namesOf('/api/v1/files').sort()).toEqual([...list].sort());
  });

  it('declares fields, deep, asOf, version and withDeleted on one item and one file', () => {
    const read = ['fields', 'deep', 'version', 'asOf', 'withDeleted'].sort();
    expect(namesOf('/api/v1/items/{collection}/{id}').sort()).toEqual(read);
    expect(namesOf('/api/v1/files/{id}').sort()).toEqual(read);
  });

  it('documents filter, deep and aggregate as a JSON text or a bracket-form deepObject', () => {
    for (const name of ['filter', 'deep', 'aggregate']) {
      const p = queryOf('/api/v1/items/{collection}').find((q) => q.name === name)!;
      expect(p.style, name).toBe('deepObject');
      expect(JSON.stringify(p.schema), name).toContain('"string"');
      expect(JSON.stringify(p.schema), name).toContain('"object"');
    }
  });

  it('declares the query parameters of every GET route that has a querystring schema, and every route that reads one has it', () => {
    const routes = declaredGetRoutes();
    expect(routes.length).toBeGreaterThan(95);
    const undeclared = routes.filter((r) => r.readsQuery && !r.querystring).map((r) => `${r.file} GET ${r.url}`);
    expect(undeclared).toEqual([]);
    const missing = routes
      .filter((r) => r.querystring && r.url.startsWith('/api/v1/') && !WEBSOCKETS.has(r.url))
      .filter((r) => queryOf(openApiPath(r.url)).length === 0)
      .map((r) => `${r.file} GET ${r.url}`);
    expect(missing).toEqual([]);
  });
});
