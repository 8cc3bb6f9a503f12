/** The loads: a–e as the Directus peer's `bench.mjs` sends them, f and g (ours only), and the site record. */
export interface Scenario {
  key: string;
  name: string;
  /** `items` are compared with Directus; `site` scenarios have no counterpart there; `search` is `bench:search`'s. */
  group: 'items' | 'site' | 'search';
  method: 'GET' | 'POST' | 'PATCH';
  /** No counterpart in the Directus peer script. */
  oursOnly?: true;
  /** `:id` stands for the sampled article's id. */
  path: string;
  body?: () => unknown;
}

let seq = 0;

export const SCENARIOS: Scenario[] = [
  {
    key: 'a',
    group: 'items',
    name: 'a list, limit 25',
    method: 'GET',
    path: '/api/v1/items/articles?limit=25',
  },
  {
    key: 'b',
    group: 'items',
    name: 'b filter status + views, sort -views, limit 25',
    method: 'GET',
    path: '/api/v1/items/articles?filter[status][_eq]=published&filter[views][_gt]=500&sort=-views&limit=25',
  },
  { key: 'c', group: 'items', name: 'c read one by id', method: 'GET', path: '/api/v1/items/articles/:id' },
  {
    key: 'd',
    group: 'items',
    name: 'd create one',
    method: 'POST',
    path: '/api/v1/items/articles',
    body: () => ({
      title: 'bench create',
      body: 'created by autocannon',
      status: 'draft',
      views: 1,
      published_at: '2024-06-01T00:00:00.000Z',
    }),
  },
  {
    key: 'e',
    group: 'items',
    name: 'e update one (same id, 10 writers)',
    method: 'PATCH',
    path: '/api/v1/items/articles/:id',
    // The peer sends the same body each time; a changing title makes every request a real write here too.
    body: () => ({ views: 777, title: `bench update ${seq++}` }),
  },
  {
    key: 'f',
    group: 'items',
    oursOnly: true,
    name: 'f list with an m2o expanded (fields=title,author.name), limit 25',
    method: 'GET',
    path: '/api/v1/items/articles?fields=title,author.name&limit=25',
  },
  {
    key: 'g',
    group: 'items',
    oursOnly: true,
    // 90 % into the default 100 000 articles; with 90 000 or fewer seeded (SEED_N) the page is empty.
    name: 'g deep page of the default order (offset 90 000), limit 25',
    method: 'GET',
    path: '/api/v1/items/articles?limit=25&offset=90000',
  },
  { key: 'site-read', group: 'site', name: 'GET /api/v1/site (read one record)', method: 'GET', path: '/api/v1/site' },
  {
    key: 'site-write',
    group: 'site',
    name: 'PATCH /api/v1/site (command on one stream)',
    method: 'PATCH',
    path: '/api/v1/site',
    body: () => ({ name: `Bench ${seq++}` }),
  },
  {
    key: 'site-create',
    group: 'site',
    name: 'POST /api/v1/sites (append to a new stream)',
    method: 'POST',
    path: '/api/v1/sites',
    body: () => ({ id: `b-${process.pid}-${seq++}`, name: 'x' }),
  },
];

/** The request line as sent: the sampled id in place of `:id` (an unreplaced `:id` is a 404 on every request). */
export function resolvePath(s: Scenario, sampleId: string): string {
  if (!s.path.includes(':id')) return s.path;
  if (!sampleId) throw new Error(`${s.key}: no sampled article id`);
  return s.path.replace(':id', encodeURIComponent(sampleId));
}

/** Like the peer: the token on every request, a content type only where there is a body. */
export function requestHeaders(s: Scenario, token: string, site: string): Record<string, string> {
  const headers: Record<string, string> = { authorization: `Bearer ${token}`, 'x-svc-site': site };
  if (s.body) headers['content-type'] = 'application/json';
  return headers;
}
