/**
 * The Directus peer benchmark's data (`setup.mjs`): the same seeded generator (mulberry32, seed 42),
 * the same fields and the same order of draws, so both services hold the same rows.
 */
export interface Article {
  title: string;
  body: string;
  status: string;
  views: number;
  published_at: string;
}

/** Authors for scenario f; article i points at author i % AUTHORS (ours only, Directus has no such field). */
export const AUTHORS = 100;

/** The peer's seeded PRNG (`setup.mjs`): uniform in [0, 1). */
export function mulberry32(seed: number): () => number {
  let a = seed;
  return () => {
    a |= 0;
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const STATUSES = ['published', 'draft', 'archived'];
const WORDS =
  'lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore et dolore magna aliqua'.split(
    ' ',
  );
const BASE_TS = Date.UTC(2024, 0, 1);

/** The peer's `makeItem(1)` … `makeItem(n)`, in that order. */
export function articles(n: number): Article[] {
  const rand = mulberry32(42);
  const words = (k: number) => Array.from({ length: k }, () => WORDS[Math.floor(rand() * WORDS.length)]).join(' ');
  return Array.from({ length: n }, (_, i) => ({
    title: `Article ${i + 1} ${words(4)}`,
    body: words(60),
    status: STATUSES[Math.floor(rand() * STATUSES.length)]!,
    views: Math.floor(rand() * 1000),
    published_at: new Date(BASE_TS + Math.floor(rand() * 365 * 86400) * 1000).toISOString(),
  }));
}

export const authorId = (i: number) => `author-${i % AUTHORS}`;

export function authors(): { id: string; name: string }[] {
  return Array.from({ length: AUTHORS }, (_, i) => ({ id: authorId(i), name: `Author ${i}` }));
}

/**
 * The row whose id scenarios c and e use: the peer takes `ids[floor(n / 2)]` of its ascending integer ids,
 * i.e. the item made by `makeItem(floor(n / 2) + 1)`; this is the same item here.
 */
export const sampleIndex = (n: number) => Math.floor(n / 2);
