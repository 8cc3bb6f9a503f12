import { sql, type Kysely } from 'kysely';
import type { Db, DB } from '../../src/kernel/db/database.ts';
import { extensionSchema } from '../../src/platform/db/migrate.ts';
import { withSite } from '../../src/kernel/tenancy/site.ts';
import type { EntrySource, TmEntryRecord } from '../../src/contracts/tm/tm.types.ts';

const iso = (d: Date | string) => new Date(d).toISOString();
const COLUMNS = [
  'entry_id',
  'source_lang',
  'target_lang',
  'source',
  'target',
  'quality',
  'entry_source',
  'created_by',
  'created_at',
  'updated_at',
] as const;

interface Row {
  entry_id: string;
  source_lang: string;
  target_lang: string;
  source: string;
  target: string;
  quality: number;
  entry_source: EntrySource;
  created_by: string;
  created_at: Date;
  updated_at: Date;
}

const toEntry = (r: Row): TmEntryRecord => ({
  id: r.entry_id,
  sourceLang: r.source_lang,
  targetLang: r.target_lang,
  source: r.source,
  target: r.target,
  quality: r.quality,
  entrySource: r.entry_source,
  createdBy: r.created_by,
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
});

/** Filters of the entry list and the export. */
export interface EntryFilter {
  source?: string | undefined;
  target?: string | undefined;
  entrySource?: EntrySource | undefined;
}

const filtered = (db: Db, siteId: string, f: EntryFilter) => {
  let q = db.selectFrom('tm_entries').where('site_id', '=', siteId);
  if (f.source !== undefined) q = q.where('source_lang', '=', f.source);
  if (f.target !== undefined) q = q.where('target_lang', '=', f.target);
  if (f.entrySource !== undefined) q = q.where('entry_source', '=', f.entrySource);
  return q;
};

/** A page of the site's entries, oldest first, and how many match. */
export async function listEntries(
  db: Db,
  siteId: string,
  f: EntryFilter & { limit: number; offset: number },
): Promise<{ rows: TmEntryRecord[]; total: number }> {
  const q = filtered(db, siteId, f);
  const rows = await q
    .select(COLUMNS)
    .orderBy('created_at')
    .orderBy('entry_id')
    .limit(f.limit)
    .offset(f.offset)
    .execute();
  const count = await q.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow();
  return { rows: rows.map(toEntry), total: Number(count.n) };
}

/** Entries after `after` (by id) for an export, at most `limit`. */
export async function entryPage(
  db: Db,
  siteId: string,
  f: EntryFilter,
  after: string | null,
  limit: number,
): Promise<TmEntryRecord[]> {
  let q = filtered(db, siteId, f).select(COLUMNS);
  if (after !== null) q = q.where('entry_id', '>', after);
  return (await q.orderBy('entry_id').limit(limit).execute()).map(toEntry);
}

export async function findEntry(db: Db, siteId: string, entryId: string): Promise<TmEntryRecord | null> {
  const row = await db
    .selectFrom('tm_entries')
    .select(COLUMNS)
    .where('site_id', '=', siteId)
    .where('entry_id', '=', entryId)
    .executeTakeFirst();
  return row ? toEntry(row) : null;
}

/** A language pair and the digest of a normalised source. */
export interface EntryKey {
  sourceLang: string;
  targetLang: string;
  hash: string;
}

const keyString = (k: EntryKey) => `${k.sourceLang}\u0000${k.targetLang}\u0000${k.hash}`;

/** The live entries that hold these keys, as a map from `entryKeyString(key)` to the entry id. */
export async function entryIdsByKey(db: Db, siteId: string, keys: readonly EntryKey[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  if (!keys.length) return out;
  const rows = await db
    .selectFrom('tm_entries')
    .select(['entry_id', 'source_lang', 'target_lang', 'source_hash'])
    .where('site_id', '=', siteId)
    .where('source_hash', 'in', [...new Set(keys.map((k) => k.hash))])
    .execute();
  for (const r of rows)
    out.set(keyString({ sourceLang: r.source_lang, targetLang: r.target_lang, hash: r.source_hash }), r.entry_id);
  return out;
}
export { keyString as entryKeyString };

/** A lookup candidate: the entry and its normalised source, to be scored by the caller. */
export interface Candidate {
  entry: TmEntryRecord;
  normalised: string;
}

const schemas = new WeakMap<object, Promise<string>>();

/** The schema pg_trgm lives in (one per database), asked once per database handle. */
export function trigramSchema(db: Kysely<DB>): Promise<string> {
  let s = schemas.get(db);
  if (!s) {
    s = extensionSchema(db, 'pg_trgm');
    s.catch(() => schemas.delete(db));
    schemas.set(db, s);
  }
  return s;
}

/**
 * The trigram similarity (pg_trgm's `%` threshold) under which an entry is not a candidate for a lookup at
 * `threshold` (0–100, the edit-distance score). A score S (edits ≤ (1 − S) × the longer length) in one run of
 * changed characters — a word edited or replaced, how near misses look — keeps about S / (2 − S) of the trigrams; the
 * floor sits 0.21 under that, since a word costs its trigrams whole, and never under pg_trgm's default of 0.3, which
 * bounds the work of low thresholds. At the default 75 it is 0.38: the rows ranked per lookup drop from thousands to
 * a few hundred for the same matches (docs/benchmarks.md, bench:search-tm). A short sentence that repeats its words
 * can fall under it (its trigram set is smaller than its length suggests).
 */
export function trigramFloor(threshold: number): number {
  const s = Math.min(1, Math.max(0, (threshold - 0.5) / 100));
  return Math.max(0.3, Math.round((s / (2 - s) - 0.21) * 100) / 100);
}

/**
 * The trigram similarity a lookup first asks for: over it, the rows pg_trgm must recheck drop from thousands to
 * a few hundred in a memory of alike sentences (docs/benchmarks.md, bench:search-tm).
 */
export const NARROW_FLOOR = 0.5;

/**
 * Lookup candidates of a language pair: the entry with exactly this normalised source, and the `limit` entries most
 * similar by trigrams among those pg_trgm's `%` operator finds through the GIN index at `trigramFloor`: asked first
 * over `NARROW_FLOOR`, and again at the floor only when that gave fewer than `limit` and no entry is exact (so the
 * answer is the same, and the common case rechecks far fewer rows).
 * The threshold is a transaction-local setting, so the statements run in one transaction under the site. Operators
 * and functions are qualified by the extension's schema.
 */
export async function entryCandidates(
  db: Db,
  siteId: string,
  q: {
    sourceLang: string;
    targetLang: string;
    normalised: string;
    hash: string;
    limit: number;
    trgm: string;
    threshold: number;
  },
): Promise<Candidate[]> {
  const ext = sql.id(q.trgm);
  const floor = trigramFloor(q.threshold);
  const floors = floor < NARROW_FLOOR ? [NARROW_FLOOR, floor] : [floor];
  const run = async (trx: Db) => {
    const pair = trx
      .selectFrom('tm_entries')
      .select([...COLUMNS, 'norm_source'])
      .where('site_id', '=', siteId)
      .where('source_lang', '=', q.sourceLang)
      .where('target_lang', '=', q.targetLang);
    const exact = await pair.where('source_hash', '=', q.hash).execute();
    let similar: typeof exact = [];
    // With the exact entry found, only entries as alike as that can tie with it (a long text one letter apart
    // scores 100 too, and may have the higher quality): the narrow pass alone finds those.
    for (const f of exact.length ? floors.slice(0, 1) : floors) {
      await sql`select set_config('pg_trgm.similarity_threshold', ${String(f)}, true)`.execute(trx);
      similar = await pair
        .where(sql<boolean>`norm_source operator(${ext}.%) ${q.normalised}`)
        .orderBy(sql`${ext}.similarity(norm_source, ${q.normalised})`, 'desc')
        .orderBy('entry_id')
        .limit(q.limit)
        .execute();
      if (similar.length >= q.limit) break;
    }
    return [...exact, ...similar];
  };
  const rows = db.isTransaction ? await run(db) : await withSite(db as Kysely<DB>, siteId, run);
  const seen = new Set<string>();
  const out: Candidate[] = [];
  for (const r of rows) {
    if (seen.has(r.entry_id)) continue;
    seen.add(r.entry_id);
    out.push({ entry: toEntry(r), normalised: r.norm_source });
  }
  return out;
}
