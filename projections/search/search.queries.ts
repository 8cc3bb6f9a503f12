import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../../src/kernel/db/database.ts';
import { MARK_START, MARK_STOP, exactQuery, positiveTerms, searchQuery } from '../../src/platform/db/text-search.ts';
import { readAsSite } from '../../src/kernel/tenancy/site.ts';
import { compileFilter, rootScope } from '../item-documents/index.ts';
import { type SiteSchema } from '../schema/index.ts';
import {
  WEIGHT_FACTORS,
  type SearchHighlight,
  type SearchHit,
  type SearchIndex,
  type SearchRequest,
  type SearchScope,
} from './search.types.ts';

const factor = sql`(case s.weight when 'A' then ${sql.lit(WEIGHT_FACTORS.A)} else ${sql.lit(WEIGHT_FACTORS.B)} end)`;

/**
 * The matching field rows of one scope, each with its score: only the scope's fields, only live items inside its
 * rows condition (compiled by the item query compiler over `item_documents a0`, joined only when there is one), so
 * nothing else can match or score. An exact match (accents as written) counts its field's weight again.
 */
function scopeMatches(siteId: string, scope: SearchScope, schema: SiteSchema): RawBuilder<unknown> {
  const rows = scope.rows
    ? sql`join item_documents a0 on a0.site_id = s.site_id and a0.collection = s.collection and a0.id = s.item_id
            and a0.deleted_at is null and ${compileFilter(scope.rows, rootScope(schema, scope.collection))}`
    : sql``;
  return sql`
    select s.collection, s.item_id, s.field,
           ${factor} * (ts_rank_cd(s.tsv, sq.q) + case when s.tsv_exact @@ sq.x then 1 else 0 end) as score
    from search_fields s
    cross join sq
    ${rows}
    where s.site_id = ${siteId} and s.collection = ${scope.collection} and s.field = any(${[...scope.fields]}::text[])
      and s.tsv @@ sq.q and not (''::tsvector @@ sq.q) and not s.deleted`;
}

interface HitRow {
  collection: string;
  item_id: string;
  score: number;
  fields: string[];
  total: number;
}

/** Full-text search on PostgreSQL (and PGlite): the `search_fields` read model, ranked with ts_rank_cd. */
export function pgSearchIndex(db: Db): SearchIndex {
  return {
    async search(req: SearchRequest) {
      const scopes = req.scopes.filter((s) => s.fields.length > 0);
      // A query of exclusions alone (`-draft`) would match nearly everything: a search needs words to find.
      if (!scopes.length || !positiveTerms(req.q)) return { hits: [], total: 0 };
      return readAsSite(db, req.siteId, async (trx) => {
        const matches = sql.join(
          scopes.map((s) => scopeMatches(req.siteId, s, req.schema)),
          sql` union all `,
        );
        const r = await sql<HitRow>`
          with sq as materialized (select ${searchQuery(req.q)} as q, ${exactQuery(req.q)} as x),
          m as materialized (${matches}),
          hits as (select collection, item_id, sum(score)::float8 as score, array_agg(field order by field) as fields
                   from m group by collection, item_id)
          select collection, item_id, score, fields, (count(*) over ())::int as total from hits
          order by score desc, collection, item_id limit ${req.limit} offset ${req.offset}`.execute(trx);
        const total =
          r.rows[0]?.total ??
          (req.offset > 0
            ? (
                await sql<{ n: number }>`with sq as materialized (select ${searchQuery(req.q)} as q,
                 ${exactQuery(req.q)} as x), m as (${matches})
                 select count(distinct (collection, item_id))::int as n from m`.execute(trx)
              ).rows[0]!.n
            : 0);
        const marks = await highlights(trx, req.siteId, req.q, r.rows);
        const hits: SearchHit[] = r.rows.map((h) => ({
          collection: h.collection,
          id: h.item_id,
          score: h.score,
          highlights: marks.get(`${h.collection}\u0000${h.item_id}`) ?? [],
        }));
        return { hits, total };
      });
    },
  };
}

/**
 * How much of a field highlights read: a snippet comes from its first part (a match further in still counts, it just
 * shows no snippet), so a page of long texts costs a bounded amount of work.
 */
const HIGHLIGHT_CHARS = 20_000;

const HEADLINE = `StartSel="${MARK_START}", StopSel="${MARK_STOP}", MaxWords=25, MinWords=8, MaxFragments=2, FragmentDelimiter=" … "`;

/**
 * The matched fields of the page's hits around their matches. ts_headline finds words by the query's lexemes, which
 * are unaccented: so the words of the text whose unaccented form is one of the query's (positive) words are looked
 * up first, among the distinct lexemes of the stored vector as written (`tsv_exact`: the same words ts_headline's
 * parser sees, already parsed), and the original text is highlighted with those words as written (`ha noi` marks
 * `Hà Nội`).
 */
async function highlights(db: Db, siteId: string, q: string, hits: HitRow[]) {
  const out = new Map<string, SearchHighlight[]>();
  const wanted = hits.flatMap((h) => h.fields.map((f) => ({ collection: h.collection, id: h.item_id, field: f })));
  const terms = positiveTerms(q);
  if (!wanted.length || !terms) return out;
  const r = await sql<{ collection: string; item_id: string; field: string; snippet: string }>`
    with terms as materialized (
      select coalesce(tsvector_to_array(to_tsvector('simple', svc_unaccent(lower(${terms}::text)))), '{}') as lx)
    select s.collection, s.item_id, s.field,
           ts_headline('simple', left(s.text, ${HIGHLIGHT_CHARS}), coalesce(h.q, ''::tsquery), ${HEADLINE}) as snippet
    from search_fields s
    join unnest(${wanted.map((w) => w.collection)}::text[], ${wanted.map((w) => w.id)}::text[],
                ${wanted.map((w) => w.field)}::text[]) as k(collection, item_id, field)
      on s.collection = k.collection and s.item_id = k.item_id and s.field = k.field
    cross join terms
    cross join lateral (
      select websearch_to_tsquery('simple', string_agg(lexeme, ' or ')) as q
      from unnest(tsvector_to_array(s.tsv_exact)) as lexeme
      where svc_unaccent(lexeme) = any(terms.lx)
    ) h
    where s.site_id = ${siteId}
    order by s.collection, s.item_id, s.field`.execute(db);
  for (const row of r.rows) {
    if (!row.snippet.includes(MARK_START)) continue;
    const key = `${row.collection}\u0000${row.item_id}`;
    const list = out.get(key) ?? [];
    list.push({ field: row.field, snippet: markup(row.snippet) });
    out.set(key, list);
  }
  return out;
}

const ESCAPES = new Map([
  ['&', '&amp;'],
  ['<', '&lt;'],
  ['>', '&gt;'],
  ['"', '&quot;'],
  ["'", '&#39;'],
]);

/** The snippet as safe HTML: the text escaped, each match in <mark>. */
function markup(snippet: string): string {
  return snippet
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/[&<>"']/g, (c) => ESCAPES.get(c)!)
    .replaceAll(MARK_START, '<mark>')
    .replaceAll(MARK_STOP, '</mark>');
}
