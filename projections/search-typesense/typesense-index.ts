import { sql } from 'kysely';
import { Client, Errors } from 'typesense';
import type { Db } from '../../src/kernel/db/database.ts';
import { readAsSite } from '../../src/kernel/tenancy/site.ts';
import { compileFilter, rootScope } from '../item-documents/index.ts';
import { type SiteSchema } from '../schema/index.ts';
import { searchableFields } from '../search/index.ts';
import type {
  SearchDocument,
  SearchHit,
  SearchIndex,
  SearchRequest,
  SearchScope,
  SearchWeight,
} from '../search/index.ts';
import {
  aliasOf,
  COLLECTION_FIELDS,
  fieldWeight,
  highlightsOf,
  MARK_START,
  MARK_STOP,
  plainField,
  plainText,
  typesenseDocument,
  writtenField,
} from './typesense-documents.ts';

export interface TypesenseSettings {
  url: string;
  apiKey: string;
  /** Put before every alias and collection name, so several instances can share one Typesense. */
  prefix: string;
}

/** The most candidates one search reads from Typesense before the caller's row rules are applied in SQL. */
export const MAX_CANDIDATES = 1000;
const PER_PAGE = 250;

export const typesenseClient = (s: TypesenseSettings): Client =>
  new Client({
    nodes: [{ url: s.url }],
    apiKey: s.apiKey,
    connectionTimeoutSeconds: 5,
    timeoutSeconds: 10,
    numRetries: 2,
    logLevel: 'silent',
  });

const notFound = (err: unknown) => err instanceof Errors.ObjectNotFound;
const ignoreMissing = (err: unknown) => {
  if (!notFound(err)) throw err;
};

/** The writes the Typesense projector makes: physical collections, documents, and aliases onto them. */
export interface TypesenseWriter {
  createCollection(name: string): Promise<void>;
  upsert(collection: string, docs: SearchDocument[]): Promise<void>;
  remove(collection: string, ids: readonly string[]): Promise<void>;
  dropCollection(name: string): Promise<void>;
  /** Points an alias at a collection (an atomic swap in Typesense). */
  pointAlias(alias: string, collection: string): Promise<void>;
  dropAlias(alias: string): Promise<void>;
  /** Every alias and collection under the prefix, to sweep what a swap left behind. */
  listed(): Promise<{ aliases: Map<string, string>; collections: string[] }>;
}

export function typesenseWriter(client: Client, prefix: string): TypesenseWriter {
  return {
    async createCollection(name) {
      try {
        await client.collections().create({ name, fields: COLLECTION_FIELDS });
      } catch (err) {
        if (!(err instanceof Errors.ObjectAlreadyExists)) throw err;
      }
    },
    async upsert(collection, docs) {
      if (!docs.length) return;
      const results = await client
        .collections(collection)
        .documents()
        .import(docs.map(typesenseDocument), { action: 'upsert' });
      const failed = results.find((r) => !r.success);
      if (failed) throw new Error(`typesense refused a document of ${collection}: ${failed.error ?? 'unknown'}`);
    },
    async remove(collection, ids) {
      for (const id of ids) await client.collections(collection).documents(id).delete().catch(ignoreMissing);
    },
    async dropCollection(name) {
      await client.collections(name).delete().catch(ignoreMissing);
    },
    async pointAlias(alias, collection) {
      await client.aliases().upsert(alias, { collection_name: collection });
    },
    async dropAlias(alias) {
      await client.aliases(alias).delete().catch(ignoreMissing);
    },
    async listed() {
      const aliases = new Map<string, string>();
      for (const a of (await client.aliases().retrieve()).aliases)
        if (a.name.startsWith(prefix)) aliases.set(a.name, a.collection_name);
      const collections = (await client.collections().retrieve())
        .map((c) => c.name)
        .filter((n) => n.startsWith(prefix));
      return { aliases, collections };
    },
  };
}

/** The parts of one multi_search result read here. */
interface TypesenseResult {
  error?: string;
  code?: number;
  hits?: { document: { id: string }; text_match: number; highlights?: { field: string; snippet?: string }[] }[];
}

type Candidate = { id: string; score: number; highlights: SearchHit['highlights'] };

/**
 * Full-text search on Typesense. Each scope is searched in its site's collection alias, only in the fields the
 * caller may read (so a hidden field never matches, scores or highlights): once without accents over the unaccented
 * copies, once as written over the written copies (an exact match scores again). The candidates (at most
 * MAX_CANDIDATES per scope) then pass the caller's row rules in SQL against item_documents, which also drops
 * deleted items; with a row rule, `total` counts the candidates that pass.
 */
export function typesenseSearchIndex(client: Client, db: Db, prefix: string): SearchIndex {
  const scopeCandidates = async (req: SearchRequest, scope: SearchScope): Promise<Map<string, Candidate>> => {
    const alias = aliasOf(prefix, req.siteId, scope.collection);
    const weights = (copy: (f: string) => string) => ({
      query_by: scope.fields.map(copy).join(','),
      query_by_weights: scope.fields.map((f) => fieldWeight(weightOf(req.schema, scope.collection, f))).join(','),
    });
    const wanted = Math.min(MAX_CANDIDATES, req.offset + req.limit);
    const common = {
      collection: alias,
      per_page: Math.min(PER_PAGE, wanted),
      num_typos: 0,
      prefix: false,
      drop_tokens_threshold: 0,
      highlight_start_tag: MARK_START,
      highlight_end_tag: MARK_STOP,
      highlight_full_fields: '',
    };
    const out = new Map<string, Candidate>();
    const visible = new Set(scope.fields);
    for (let page = 1; (page - 1) * PER_PAGE < wanted; page++) {
      const answer = await client.multiSearch.perform({
        searches: [
          { ...common, ...weights(plainField), q: plainText(req.q), page },
          { ...common, ...weights(writtenField), q: req.q, page },
        ],
      });
      const results = (answer as unknown as { results: TypesenseResult[] }).results;
      let more = false;
      for (const r of results) {
        if (r.error) {
          // A collection nobody indexed yet (no alias): nothing of it can match.
          if (r.code === 404) continue;
          throw new Error(`typesense search failed: ${r.error}`);
        }
        const hits = r.hits ?? [];
        more ||= hits.length === PER_PAGE;
        for (const h of hits) {
          const id = String(h.document.id);
          const seen = out.get(id) ?? { id, score: 0, highlights: [] };
          seen.score += h.text_match;
          const marks = highlightsOf(h.highlights ?? [], visible);
          for (const m of marks) if (!seen.highlights.some((x) => x.field === m.field)) seen.highlights.push(m);
          out.set(id, seen);
        }
      }
      if (!more) break;
    }
    return out;
  };

  return {
    async search(req) {
      const scopes = req.scopes.filter((s) => s.fields.length > 0);
      if (!scopes.length || !req.q.replace(/[-"\s]/g, '')) return { hits: [], total: 0 };
      const all: SearchHit[] = [];
      for (const scope of scopes) {
        const found = await scopeCandidates(req, scope);
        if (!found.size) continue;
        const kept = await rowsAmong(db, req.siteId, scope, [...found.keys()], req.schema);
        for (const c of found.values())
          if (kept.has(c.id))
            all.push({ collection: scope.collection, id: c.id, score: c.score, highlights: c.highlights });
      }
      all.sort((a, b) => b.score - a.score || a.collection.localeCompare(b.collection) || a.id.localeCompare(b.id));
      return { hits: all.slice(req.offset, req.offset + req.limit), total: all.length };
    },
  };
}

const weightOf = (schema: SiteSchema, collection: string, field: string): SearchWeight =>
  searchableFields(schema, collection).find((f) => f.field === field)?.weight ?? 'B';

/** Of these items, those the caller may read: live, and inside the scope's row rule (the items list's compiler). */
async function rowsAmong(
  db: Db,
  siteId: string,
  scope: SearchScope,
  ids: string[],
  schema: SiteSchema,
): Promise<Set<string>> {
  const rows = scope.rows ? compileFilter(scope.rows, rootScope(schema, scope.collection)) : sql`true`;
  const r = await readAsSite(db, siteId, (trx) =>
    sql<{ id: string }>`
      select a0.id from item_documents a0
      where a0.site_id = ${siteId} and a0.collection = ${scope.collection} and a0.id = any(${ids}::text[])
        and a0.deleted_at is null and ${rows}`.execute(trx),
  );
  return new Set(r.rows.map((x) => x.id));
}
