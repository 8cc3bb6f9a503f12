import type { AppDeps } from '../../deps.ts';

import { handleCommand, handleCommands, readState, streamCommand } from '../../kernel/es/handle-command.ts';
import type { CommandContext } from '../../kernel/http/command-meta.ts';
import { readAsSite } from '../../kernel/tenancy/site.ts';
import { entryIdsByKey, entryKeyString } from '../../../projections/tm/index.ts';
import { tmEntryDecider, type TmEntry, type TmEntryState, type UpsertTmEntry } from './tm.decider.ts';
import { TmEntryExists, TmEntryMoved, TmEntryNotFound } from './tm.errors.ts';
import { tmEntryId, tmEntryStream, type TmEntryChanges, type TmEntryEvent } from '../../contracts/tm/tm.events.ts';
import { normaliseText, textHash, type EntrySource, type TmEntryRecord } from '../../contracts/tm/tm.types.ts';

export type Ctx = Pick<CommandContext, 'siteId' | 'now' | 'metadata' | 'actor'>;
type Deps = Pick<AppDeps, 'db' | 'store'>;

/** What an upsert or an import gives for one entry. */
export interface EntryInput {
  sourceLang: string;
  targetLang: string;
  source: string;
  target: string;
  quality?: number | undefined;
  entrySource?: EntrySource | undefined;
}

/** Generations of derived ids tried before an upsert gives up (each one a source edited away from its stream). */
const GENERATIONS = 8;
/** Entries one append of an import carries at most. */
export const IMPORT_CHUNK = 500;

/** A folded entry as the API shows it. */
export const recordOf = (e: TmEntry): TmEntryRecord => ({
  id: e.id,
  sourceLang: e.sourceLang,
  targetLang: e.targetLang,
  source: e.source,
  target: e.target,
  quality: e.quality,
  entrySource: e.entrySource,
  createdBy: e.createdBy,
  createdAt: e.createdAt,
  updatedAt: e.updatedAt,
});

const keyOf = (i: Pick<EntryInput, 'sourceLang' | 'targetLang' | 'source'>) => {
  const normalised = normaliseText(i.source);
  return { normalised, sourceLang: i.sourceLang, targetLang: i.targetLang, hash: textHash(normalised) };
};

const holds = (s: TmEntryState, normalised: string) => !s.entry || normaliseText(s.entry.source) === normalised;

/** The id the key's entry lives under: the live entry's, else the first derived id whose stream is free for it. */
async function entryIdFor(deps: Deps, siteId: string, input: EntryInput): Promise<string> {
  const key = keyOf(input);
  const live = await readAsSite(deps.db, siteId, (db) => entryIdsByKey(db, siteId, [key]));
  const known = live.get(entryKeyString(key));
  if (known) return known;
  for (let g = 0; g < GENERATIONS; g++) {
    const id = tmEntryId(siteId, key.sourceLang, key.targetLang, key.normalised, g);
    const { state } = await readState(deps.store, tmEntryDecider, tmEntryStream(siteId, id));
    if (holds(state, key.normalised)) return id;
  }
  throw new TmEntryMoved({ entryId: tmEntryId(siteId, key.sourceLang, key.targetLang, key.normalised) });
}

const upsertCommand = (ctx: Ctx, entryId: string, input: EntryInput): UpsertTmEntry => ({
  type: 'UpsertTmEntry',
  data: { ...input, entryId, now: ctx.now.toISOString(), by: ctx.actor.id },
});

/** Adds an entry, or updates the pair's entry with the same normalised source: `created` tells which. */
export async function upsertEntry(
  deps: Deps,
  ctx: Ctx,
  input: EntryInput,
): Promise<{ record: TmEntryRecord; created: boolean }> {
  const entryId = await entryIdFor(deps, ctx.siteId, input);
  const r = await handleCommand(
    deps.store,
    tmEntryDecider,
    tmEntryStream(ctx.siteId, entryId),
    upsertCommand(ctx, entryId, input),
    { metadata: ctx.metadata },
  );
  return { record: recordOf(r.state.entry!), created: r.events.some((e) => e.type === 'TmEntryCreated') };
}

/** Changes an entry's source, target, quality or origin; a source another entry of the pair has is a conflict. */
export async function updateEntry(
  deps: Deps,
  ctx: Ctx,
  input: { entryId: string; changes: TmEntryChanges },
): Promise<TmEntryRecord> {
  const { entryId, changes } = input;
  const stream = tmEntryStream(ctx.siteId, entryId);
  const { state } = await readState(deps.store, tmEntryDecider, stream);
  if (!state.entry) throw new TmEntryNotFound({ entryId });
  if (changes.source !== undefined && normaliseText(changes.source) !== normaliseText(state.entry.source)) {
    const key = keyOf({ ...state.entry, source: changes.source });
    const live = await readAsSite(deps.db, ctx.siteId, (db) => entryIdsByKey(db, ctx.siteId, [key]));
    const other = live.get(entryKeyString(key));
    if (other && other !== entryId) throw new TmEntryExists({ entryId: other });
  }
  const data = { entryId, changes, now: ctx.now.toISOString(), by: ctx.actor.id };
  const r = await handleCommand(
    deps.store,
    tmEntryDecider,
    stream,
    { type: 'UpdateTmEntry', data },
    {
      metadata: ctx.metadata,
    },
  );
  return recordOf(r.state.entry!);
}

/** Removes an entry. */
export async function deleteEntry(deps: Deps, ctx: Ctx, input: { entryId: string }): Promise<void> {
  const data = { entryId: input.entryId, now: ctx.now.toISOString(), by: ctx.actor.id };
  await handleCommand(
    deps.store,
    tmEntryDecider,
    tmEntryStream(ctx.siteId, input.entryId),
    { type: 'DeleteTmEntry', data },
    { metadata: ctx.metadata },
  );
}

/** How an import went: entries added, entries changed, and entries left as they were or refused. */
export interface ImportCounts {
  imported: number;
  updated: number;
  skipped: number;
}

/** One chunk of an import in one append: each entry upserted on its own stream, all or nothing. */
async function importChunk(deps: Deps, ctx: Ctx, inputs: readonly EntryInput[]): Promise<ImportCounts> {
  const site = ctx.siteId;
  // The last entry of a key wins within a chunk; the earlier ones count as skipped.
  const byKey = new Map<string, { input: EntryInput; key: ReturnType<typeof keyOf> }>();
  for (const input of inputs) {
    const key = keyOf(input);
    byKey.set(entryKeyString(key), { input, key });
  }
  const live = await readAsSite(deps.db, site, (db) =>
    entryIdsByKey(
      db,
      site,
      [...byKey.values()].map((v) => v.key),
    ),
  );
  const commands = [...byKey].map(([k, { input, key }]) => {
    const known = live.get(k);
    const entryId = known ?? tmEntryId(site, key.sourceLang, key.targetLang, key.normalised);
    return streamCommand<TmEntryState, UpsertTmEntry, TmEntryEvent>({
      decider: tmEntryDecider,
      streamId: tmEntryStream(site, entryId),
      // A derived stream whose entry was edited to another source is left alone (counted as skipped).
      command: (state) => (holds(state, key.normalised) ? upsertCommand(ctx, entryId, input) : null),
      // Not in the read model: most likely a new stream (a deleted entry's stream is found by the append's check).
      fresh: !known,
    });
  });
  const results = await handleCommands(deps.store, commands, { metadata: ctx.metadata });
  const counts: ImportCounts = { imported: 0, updated: 0, skipped: inputs.length - byKey.size };
  for (const r of results) {
    const type = r.events[0]?.type;
    if (type === 'TmEntryCreated') counts.imported++;
    else if (type === 'TmEntryUpdated') counts.updated++;
    else counts.skipped++;
  }
  return counts;
}

/** Upserts many entries, IMPORT_CHUNK to an append; `skipped` adds the entries the caller refused before. */
export async function importEntries(deps: Deps, ctx: Ctx, inputs: readonly EntryInput[]): Promise<ImportCounts> {
  const total: ImportCounts = { imported: 0, updated: 0, skipped: 0 };
  for (let i = 0; i < inputs.length; i += IMPORT_CHUNK) {
    const c = await importChunk(deps, ctx, inputs.slice(i, i + IMPORT_CHUNK));
    total.imported += c.imported;
    total.updated += c.updated;
    total.skipped += c.skipped;
  }
  return total;
}
