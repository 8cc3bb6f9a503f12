import { sql, type Transaction } from 'kysely';
import type { DB } from '../../src/kernel/db/database.ts';
import { defineProjector, type StoredEventOf } from '../../src/kernel/es/projector.ts';
import { PRESET_EVENT_TYPES, type PresetEvent } from '../../src/contracts/presets/presets.events.ts';
import type { CollectionDeleted, FieldDeleted } from '../../src/contracts/schema/schema.events.ts';
import { afterFieldDeleted } from './presets.rewrite.ts';

type Event = PresetEvent | FieldDeleted | CollectionDeleted;

async function applyPreset(trx: Transaction<DB>, e: StoredEventOf<PresetEvent>): Promise<void> {
  const site = e.siteId;
  switch (e.type) {
    case 'PresetCreated': {
      const d = e.data;
      await trx
        .insertInto('presets')
        .values({
          site_id: site,
          preset_id: d.presetId,
          collection: d.collection,
          user_id: d.userId,
          role_id: d.roleId,
          bookmark: d.bookmark,
          layout: d.layout,
          layout_options: JSON.stringify(d.layoutOptions),
          query: JSON.stringify(d.query),
          stale: false,
          stale_fields: '[]',
          created_at: d.at,
          updated_at: d.at,
        })
        .onConflict((oc) => oc.columns(['site_id', 'preset_id']).doNothing())
        .execute();
      return;
    }
    case 'PresetUpdated': {
      const c = e.data.changes;
      await trx
        .updateTable('presets')
        .set({
          ...(c.collection !== undefined ? { collection: c.collection } : {}),
          ...(c.userId !== undefined ? { user_id: c.userId } : {}),
          ...(c.roleId !== undefined ? { role_id: c.roleId } : {}),
          ...(c.bookmark !== undefined ? { bookmark: c.bookmark } : {}),
          ...(c.layout !== undefined ? { layout: c.layout } : {}),
          ...(c.layoutOptions !== undefined ? { layout_options: JSON.stringify(c.layoutOptions) } : {}),
          // A new query is checked against today's schema: it clears what a field's deletion flagged.
          ...(c.query !== undefined ? { query: JSON.stringify(c.query), stale: false, stale_fields: '[]' } : {}),
          updated_at: e.data.at,
        })
        .where('site_id', '=', site)
        .where('preset_id', '=', e.data.presetId)
        .execute();
      return;
    }
    case 'PresetDeleted':
      await trx.deleteFrom('presets').where('site_id', '=', site).where('preset_id', '=', e.data.presetId).execute();
      return;
  }
}

/** A deleted field leaves the collection's presets' fields and sort; a filter or layout naming it flags them stale. */
async function applyFieldDeleted(trx: Transaction<DB>, e: StoredEventOf<FieldDeleted>): Promise<void> {
  const rows = await trx
    .selectFrom('presets')
    .select(['preset_id', 'query', 'layout_options', 'stale', 'stale_fields'])
    .where('site_id', '=', e.siteId)
    .where('collection', '=', e.data.collection)
    .execute();
  for (const r of rows) {
    const before = { query: r.query, layoutOptions: r.layout_options, stale: r.stale, staleFields: r.stale_fields };
    const after = afterFieldDeleted(before, e.data.field);
    if (JSON.stringify(after) === JSON.stringify(before)) continue;
    await trx
      .updateTable('presets')
      .set({ query: JSON.stringify(after.query), stale: after.stale, stale_fields: JSON.stringify(after.staleFields) })
      .where('site_id', '=', e.siteId)
      .where('preset_id', '=', r.preset_id)
      .execute();
  }
}

async function apply(trx: Transaction<DB>, e: StoredEventOf<Event>): Promise<void> {
  switch (e.type) {
    case 'FieldDeleted':
      return applyFieldDeleted(trx, e);
    case 'CollectionDeleted':
      await trx
        .updateTable('presets')
        .set({ stale: true })
        .where('site_id', '=', e.siteId)
        .where('collection', '=', e.data.name)
        .execute();
      return;
    default:
      return applyPreset(trx, e);
  }
}

/** A site's view presets and bookmarks, kept in step with the schema's deletions, written in the append transaction. */
export const presetsProjector = defineProjector<Event>({
  name: 'presets',
  version: 1,
  mode: 'inline',
  tables: ['presets'],
  handles: [...PRESET_EVENT_TYPES, 'FieldDeleted', 'CollectionDeleted'],
  createTables: async (db, t) => {
    const presets = t('presets');
    await sql`
      create table ${sql.table(presets)} (
        site_id text not null,
        preset_id text not null,
        collection text not null,
        user_id text,
        role_id text,
        bookmark text,
        layout text,
        layout_options jsonb,
        query jsonb not null,
        stale boolean not null,
        stale_fields jsonb not null,
        created_at timestamptz not null,
        updated_at timestamptz not null,
        primary key (site_id, preset_id)
      )`.execute(db);
    await sql`create index ${sql.raw(`${presets}_collection`)} on ${sql.table(presets)} (site_id, collection)`.execute(
      db,
    );
  },
  apply,
});
