import type { Db } from '../../src/kernel/db/database.ts';
import type { GlossaryTermRecord } from '../../src/contracts/tm/tm.types.ts';

const iso = (d: Date | string) => new Date(d).toISOString();
const COLUMNS = [
  'term_id',
  'source_lang',
  'target_lang',
  'term',
  'translation',
  'case_sensitive',
  'created_by',
  'created_at',
  'updated_at',
] as const;

const toTerm = (r: {
  term_id: string;
  source_lang: string;
  target_lang: string;
  term: string;
  translation: string;
  case_sensitive: boolean;
  created_by: string;
  created_at: Date;
  updated_at: Date;
}): GlossaryTermRecord => ({
  id: r.term_id,
  sourceLang: r.source_lang,
  targetLang: r.target_lang,
  term: r.term,
  translation: r.translation,
  caseSensitive: r.case_sensitive,
  createdBy: r.created_by,
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
});

const pairOf = (db: Db, siteId: string, f: { source?: string | undefined; target?: string | undefined }) => {
  let q = db.selectFrom('tm_glossary').where('site_id', '=', siteId);
  if (f.source !== undefined) q = q.where('source_lang', '=', f.source);
  if (f.target !== undefined) q = q.where('target_lang', '=', f.target);
  return q;
};

/** A page of the site's glossary, by language pair and term, and how many match. */
export async function listTerms(
  db: Db,
  siteId: string,
  f: { source?: string | undefined; target?: string | undefined; limit: number; offset: number },
): Promise<{ rows: GlossaryTermRecord[]; total: number }> {
  const q = pairOf(db, siteId, f);
  const rows = await q
    .select(COLUMNS)
    .orderBy('source_lang')
    .orderBy('target_lang')
    .orderBy('term')
    .orderBy('term_id')
    .limit(f.limit)
    .offset(f.offset)
    .execute();
  const count = await q.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow();
  return { rows: rows.map(toTerm), total: Number(count.n) };
}

export async function findTerm(db: Db, siteId: string, termId: string): Promise<GlossaryTermRecord | null> {
  const row = await db
    .selectFrom('tm_glossary')
    .select(COLUMNS)
    .where('site_id', '=', siteId)
    .where('term_id', '=', termId)
    .executeTakeFirst();
  return row ? toTerm(row) : null;
}

/** The id of the pair's term with this normalised-term digest, or null. */
export async function termIdByKey(
  db: Db,
  siteId: string,
  k: { sourceLang: string; targetLang: string; hash: string },
): Promise<string | null> {
  const row = await db
    .selectFrom('tm_glossary')
    .select('term_id')
    .where('site_id', '=', siteId)
    .where('source_lang', '=', k.sourceLang)
    .where('target_lang', '=', k.targetLang)
    .where('term_hash', '=', k.hash)
    .executeTakeFirst();
  return row?.term_id ?? null;
}

/** The glossary of a language pair (at most `limit` terms), the longest terms first. */
export async function termsOfPair(
  db: Db,
  siteId: string,
  sourceLang: string,
  targetLang: string,
  limit: number,
): Promise<GlossaryTermRecord[]> {
  const rows = await pairOf(db, siteId, { source: sourceLang, target: targetLang })
    .select(COLUMNS)
    .orderBy((eb) => eb.fn('char_length', ['term']), 'desc')
    .orderBy('term_id')
    .limit(limit)
    .execute();
  return rows.map(toTerm);
}
