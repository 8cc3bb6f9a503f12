import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../setup/app.ts';

/**
 * One rule for the meta of every list (docs/decisions.md, "List metadata"), checked on the served OpenAPI document,
 * whose response schemas are also the serialisers: a list that takes `offset` answers { total, limit, offset }; one
 * that pages by `page` answers { total, page, pageSize }; the cursor list (`before`) answers { limit, next }; a list
 * without paging answers { total }.
 */
type Schema = {
  $ref?: string;
  type?: string;
  anyOf?: Schema[];
  properties?: Record<string, Schema>;
  required?: string[];
};
type Operation = { parameters?: { in: string; name: string }[]; responses: Record<string, unknown> };
type Doc = { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, Schema> } };

let t: TestApp;
let doc: Doc;

beforeAll(async () => {
  t = await createTestApp();
  const res = await t.call({ method: 'GET', url: '/api/v1/openapi.json' });
  expect(res.statusCode).toBe(200);
  doc = res.json();
}, 120_000);
afterAll(() => t?.close());

const resolve = (s: Schema | undefined): Schema | undefined =>
  s?.$ref ? doc.components.schemas[s.$ref.split('/').pop()!] : s;

type Kind = 'offset' | 'page' | 'cursor' | 'unpaged';

/** The paging a list takes, from its query parameters. */
function kindOf(query: Set<string>): Kind {
  if (query.has('offset')) return 'offset';
  if (query.has('page')) return 'page';
  if (query.has('before')) return 'cursor';
  return 'unpaged';
}

/** The meta keys (all required, but `total` where the caller may turn the count off with `meta=none`). */
const EXPECTED: Record<Kind, string[]> = {
  offset: ['limit', 'offset', 'total'],
  page: ['page', 'pageSize', 'total'],
  cursor: ['limit', 'next'],
  unpaged: ['total'],
};

interface ListRoute {
  path: string;
  kind: Kind;
  keys: string[];
  required: string[];
  countOptional: boolean;
}

function listRoutes(): ListRoute[] {
  const out: ListRoute[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    const op = item.get;
    if (!op) continue;
    const ok = op.responses['200'] as { content?: Record<string, { schema?: Schema }> } | undefined;
    const body = resolve(ok?.content?.['application/json']?.schema);
    const data = resolve(body?.properties?.data);
    const isList = data?.type === 'array' || (data?.anyOf ?? []).some((s) => resolve(s)?.type === 'array');
    if (!isList) continue;
    const meta = resolve(body?.properties?.meta);
    const query = new Set((op.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name));
    out.push({
      path,
      kind: kindOf(query),
      keys: Object.keys(meta?.properties ?? {}).filter((k) => k !== 'filter_count'),
      required: meta?.required ?? [],
      countOptional: query.has('meta'),
    });
  }
  return out;
}

describe('List metadata', () => {
  it('follows the rule on every list route of the OpenAPI document', () => {
    const lists = listRoutes();
    expect(lists.length).toBeGreaterThan(40);
    const wrong = lists
      .filter((l) => {
        const expected = EXPECTED[l.kind];
        const required = expected.filter((k) => !(k === 'total' && l.countOptional));
        return l.keys.sort().join() !== expected.join() || !required.every((k) => l.required.includes(k));
      })
      .map((l) => `${l.path} (${l.kind} list): meta ${JSON.stringify(l.keys)} required ${JSON.stringify(l.required)}`);
    expect(wrong).toEqual([]);
  });

  it('knows lists of every kind (the rule is not vacuous)', () => {
    const kinds = new Set(listRoutes().map((l) => l.kind));
    expect([...kinds].sort()).toEqual(['cursor', 'offset', 'page', 'unpaged']);
  });
});

describe('GET /api/v1/releases', () => {
  it('answers a page list meta { total, page, pageSize }', async () => {
    const token = await t.setup();
    const res = await t.call({ method: 'GET', url: '/api/v1/releases?page=2&limit=5', as: token, site: 'main' });
    expect(res.statusCode).toBe(200);
    expect(res.json().meta).toEqual({ total: 0, page: 2, pageSize: 5 });
  });
});

describe('GET /api/v1/me/automated-decisions', () => {
  it('answers an offset list meta { total, limit, offset }', async () => {
    const login = await t.call({
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { email: 'admin@example.com', password: 'Correct-horse-42!' },
    });
    const token = login.json().data.token as string;
    const res = await t.call({
      method: 'GET',
      url: '/api/v1/me/automated-decisions?limit=3&offset=1',
      as: token,
      site: 'main',
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().meta).toEqual({ total: 0, limit: 3, offset: 1 });
  });
});
