import { articles, authorId, authors, sampleIndex, type Article } from './data.ts';

/** Rows per POST, as the peer seeds (`SEED_BATCH`). */
const BATCH = 500;

export interface Seeded {
  /** Wall time of the article POSTs only (the peer's `seed_ms` measures the same). */
  ms: number;
  n: number;
  sampleId: string;
}

/**
 * Creates `articles` with the peer's fields plus `author` (m2o → `authors`), 100 authors, then `n` articles
 * through the API in arrays of 500, one request after the other as the peer does. `source` replaces the peer's rows
 * (same fields), e.g. the mixed English and Vietnamese text of `bench:search`.
 */
export async function seed(
  url: string,
  token: string,
  site: string,
  n: number,
  source: Article[] = articles(n),
): Promise<Seeded> {
  const headers = { authorization: `Bearer ${token}`, 'x-svc-site': site, 'content-type': 'application/json' };
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
    if (!res.ok) throw new Error(`POST ${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as { data: unknown };
  };
  await post('/api/v1/collections', { name: 'articles', icon: 'article' });
  // `status` is a system value of every item, so the peer's status field needs no field of its own.
  const fields = [
    ['title', 'string'],
    ['body', 'text'],
    ['views', 'integer'],
    ['published_at', 'datetime'],
    ['author', 'string'],
  ];
  for (const [field, type] of fields) await post('/api/v1/fields/articles', { field, type });
  await post('/api/v1/collections', { name: 'authors' });
  await post('/api/v1/fields/authors', { field: 'name', type: 'string' });
  await post('/api/v1/relations', { kind: 'm2o', collection: 'articles', field: 'author', target: 'authors' });
  await post('/api/v1/items/authors', authors());

  const rows = source.slice(0, n).map((a, i) => ({ ...a, author: authorId(i) }));
  const sample = sampleIndex(n);
  let sampleId = '';
  const t0 = Date.now();
  for (let i = 0; i < rows.length; i += BATCH) {
    const { data } = await post('/api/v1/items/articles', rows.slice(i, i + BATCH));
    if (sample >= i && sample < i + BATCH) sampleId = (data as { id: string }[])[sample - i]!.id;
    const done = Math.min(i + BATCH, n);
    if (done % 10_000 === 0 || done === n) {
      const ms = Date.now() - t0;
      console.error(`[bench] seeded ${done}/${n} in ${ms} ms (${Math.round((done * 1000) / Math.max(ms, 1))}/s)`);
    }
  }
  return { ms: Date.now() - t0, n, sampleId };
}
