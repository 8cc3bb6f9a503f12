import { sql, type Kysely, type Transaction } from 'kysely';
import type { DB } from '../../src/kernel/db/database.ts';
import { extensionSchema } from '../../src/platform/db/migrate.ts';
import { defineProjector, type StoredEventOf } from '../../src/kernel/es/projector.ts';
import {
  GLOSSARY_EVENT_TYPES,
  TM_ENTRY_EVENT_TYPES,
  type GlossaryEvent,
  type TmEntryEvent,
} from '../../src/contracts/tm/tm.events.ts';
import { normaliseText, textHash } from '../../src/contracts/tm/tm.types.ts';

type Event = TmEntryEvent | GlossaryEvent;

const keyOf = (text: string) => {
  const norm = normaliseText(text);
  return { norm, hash: textHash(norm) };
};

async function applyEntry(trx: Transaction<DB>, e: StoredEventOf<TmEntryEvent>): Promise<void> {
  const site = e.siteId;
  switch (e.type) {
    case 'TmEntryCreated': {
      const d = e.data;
      const { norm, hash } = keyOf(d.source);
      await trx
        .insertInto('tm_entries')
        .values({
          site_id: site,
          entry_id: d.entryId,
          source_lang: d.sourceLang,
          target_lang: d.targetLang,
          source: d.source,
          target: d.target,
          quality: d.quality,
          entry_source: d.entrySource,
          norm_source: norm,
          source_hash: hash,
          created_by: d.by,
          created_at: d.at,
          updated_at: d.at,
        })
        .onConflict((oc) => oc.columns(['site_id', 'entry_id']).doNothing())
        .execute();
      return;
    }
    case 'TmEntryUpdated': {
      const c = e.data.changes;
      const key = c.source !== undefined ? keyOf(c.source) : null;
      await trx
        .updateTable('tm_entries')
        .set({
          ...(c.source !== undefined && key ? { source: c.source, norm_source: key.norm, source_hash: key.hash } : {}),
          ...(c.target !== undefined ? { target: c.target } : {}),
          ...(c.quality !== undefined ? { quality: c.quality } : {}),
          ...(c.entrySource !== undefined ? { entry_source: c.entrySource } : {}),
          updated_at: e.data.at,
        })
        .where('site_id', '=', site)
        .where('entry_id', '=', e.data.entryId)
        .execute();
      return;
    }
    case 'TmEntryDeleted':
      await trx.deleteFrom('tm_entries').where('site_id', '=', site).where('entry_id', '=', e.data.entryId).execute();
      return;
  }
}

async function applyTerm(trx: Transaction<DB>, e: StoredEventOf<GlossaryEvent>): Promise<void> {
  const site = e.siteId;
  switch (e.type) {
    case 'GlossaryTermCreated': {
      const d = e.data;
      await trx
        .insertInto('tm_glossary')
        .values({
          site_id: site,
          term_id: d.termId,
          source_lang: d.sourceLang,
          target_lang: d.targetLang,
          term: d.term,
          translation: d.translation,
          case_sensitive: d.caseSensitive,
          term_hash: keyOf(d.term).hash,
          created_by: d.by,
          created_at: d.at,
          updated_at: d.at,
        })
        .onConflict((oc) => oc.columns(['site_id', 'term_id']).doNothing())
        .execute();
      return;
    }
    case 'GlossaryTermUpdated': {
      const c = e.data.changes;
      await trx
        .updateTable('tm_glossary')
        .set({
          ...(c.term !== undefined ? { term: c.term, term_hash: keyOf(c.term).hash } : {}),
          ...(c.translation !== undefined ? { translation: c.translation } : {}),
          ...(c.caseSensitive !== undefined ? { case_sensitive: c.caseSensitive } : {}),
          updated_at: e.data.at,
        })
        .where('site_id', '=', site)
        .where('term_id', '=', e.data.termId)
        .execute();
      return;
    }
    case 'GlossaryTermDeleted':
      await trx.deleteFrom('tm_glossary').where('site_id', '=', site).where('term_id', '=', e.data.termId).execute();
      return;
  }
}

const GLOSSARY_TYPES: ReadonlySet<string> = new Set(GLOSSARY_EVENT_TYPES);

/**
 * A site's translation memory and glossary, written in the append transaction. The normalised source carries a
 * trigram GIN index (pg_trgm's operator class, qualified by the schema the extension lives in, since the service's
 * search_path may not reach it); the unique keys back up the commands' own checks.
 */
export const tmProjector = defineProjector<Event>({
  name: 'tm',
  version: 1,
  mode: 'inline',
  tables: ['tm_entries', 'tm_glossary'],
  handles: [...TM_ENTRY_EVENT_TYPES, ...GLOSSARY_EVENT_TYPES],
  createTables: async (db, t) => {
    const trgm = await extensionSchema(db as Kysely<DB>, 'pg_trgm');
    const entries = t('tm_entries');
    await sql`
      create table ${sql.table(entries)} (
        site_id text not null,
        entry_id text not null,
        source_lang text not null,
        target_lang text not null,
        source text not null,
        target text not null,
        quality integer not null,
        entry_source text not null,
        norm_source text not null,
        source_hash text not null,
        created_by text not null,
        created_at timestamptz not null,
        updated_at timestamptz not null,
        primary key (site_id, entry_id)
      )`.execute(db);
    await sql`create unique index ${sql.raw(`${entries}_key`)} on ${sql.table(entries)}
              (site_id, source_lang, target_lang, source_hash)`.execute(db);
    await sql`create index ${sql.raw(`${entries}_listing`)} on ${sql.table(entries)}
              (site_id, created_at, entry_id)`.execute(db);
    await sql`create index ${sql.raw(`${entries}_trgm`)} on ${sql.table(entries)}
              using gin (norm_source ${sql.id(trgm)}.gin_trgm_ops)`.execute(db);
    const glossary = t('tm_glossary');
    await sql`
      create table ${sql.table(glossary)} (
        site_id text not null,
        term_id text not null,
        source_lang text not null,
        target_lang text not null,
        term text not null,
        translation text not null,
        case_sensitive boolean not null,
        term_hash text not null,
        created_by text not null,
        created_at timestamptz not null,
        updated_at timestamptz not null,
        primary key (site_id, term_id)
      )`.execute(db);
    await sql`create unique index ${sql.raw(`${glossary}_key`)} on ${sql.table(glossary)}
              (site_id, source_lang, target_lang, term_hash)`.execute(db);
  },
  apply: (trx, e) =>
    GLOSSARY_TYPES.has(e.type)
      ? applyTerm(trx, e as StoredEventOf<GlossaryEvent>)
      : applyEntry(trx, e as StoredEventOf<TmEntryEvent>),
});
