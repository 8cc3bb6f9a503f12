import type { AppDeps } from '../../deps.ts';
import type { Decider } from '../../kernel/es/decider.ts';
import type { ActorRef } from '../../kernel/es/event.ts';
import { handleCommand } from '../../kernel/es/handle-command.ts';
import type { Principal } from '../../kernel/http/access.ts';
import type { CommandContext } from '../../kernel/http/command-meta.ts';
import { DomainError } from '../../kernel/http/errors.ts';
import { dictFrom } from '../../kernel/safe/keys.ts';
import { readAsSite } from '../../kernel/tenancy/site.ts';
import { listIntents, type GitIntentRow } from '../../../projections/git-integrations/index.ts';
import { importConfig, type ImportResult } from '../config/index.ts';
import type { ItemsApi } from '../items/index.ts';
import { findPageBySlug, pageWrites } from '../pages/index.ts';
import { RESOURCES } from '../../kernel/auth/authorizer.ts';
import { newId } from '../../kernel/ids.ts';
import {
  gitIntentStream,
  gitSyncStream,
  type AppliedIntent,
  type GitContentIntentRemoved,
  type GitContentIntentSet,
  type GitopsSynced,
  type RefusedIntent,
} from '../../contracts/git/git.events.ts';
import { canonical, differingFields, PAGE_INTENTS, type ItemIntent, type PageIntent } from './git.intents.ts';
import { readIntents, repositoryFor } from './git.repository.ts';

type IntentState = { values: string; path: string } | null;
type IntentCommand =
  | { type: 'SetIntent'; data: GitContentIntentSet['data'] }
  | { type: 'RemoveIntent'; data: GitContentIntentRemoved['data'] };

/** One stream per declared item: an intent is recorded when it is new or changed, removed once. */
export const intentDecider: Decider<IntentState, IntentCommand, GitContentIntentSet | GitContentIntentRemoved> = {
  initialState: () => null,
  evolve: (_s, e) =>
    e.type === 'GitContentIntentSet' ? { values: canonical(e.data.values), path: e.data.path } : null,
  decide: (c, s) => {
    if (c.type === 'RemoveIntent') return s ? [{ type: 'GitContentIntentRemoved', data: c.data }] : [];
    if (s && s.values === canonical(c.data.values) && s.path === c.data.path) return [];
    return [{ type: 'GitContentIntentSet', data: c.data }];
  },
};

const syncDecider: Decider<null, { type: 'RecordSync'; data: GitopsSynced['data'] }, GitopsSynced> = {
  initialState: () => null,
  evolve: () => null,
  decide: (c) => [{ type: 'GitopsSynced', data: c.data }],
};

/** An item named by the drift report. */
export interface DriftEntry {
  path: string | null;
  collection: string;
  itemId: string;
  fields?: string[];
}

export interface SyncReport {
  sha: string;
  branch: string;
  dryRun: boolean;
  files: number;
  intents: number;
  drift: { missing: DriftEntry[]; different: DriftEntry[]; extra: DriftEntry[]; inSync: number };
  applied: AppliedIntent[];
  refused: RefusedIntent[];
  /** The configuration manifest's plan (and what was applied), or null when the repository has none. */
  config: (Omit<ImportResult, 'version'> & { path: string; skipped?: string[] }) | null;
}

/** An intent as the drift scan and the content intents see it: pages under `@page` and their slug. */
interface Declared {
  path: string;
  collection: string;
  itemId: string;
  values: Record<string, unknown>;
  /** The item's id as the file gives it (a number for integer keys); absent for a page. */
  id?: string | number;
}

/**
 * A preview applies the schema of its branch's manifest, not its webhooks or settings: those act outside the preview
 * (deliveries of its copied content to an address a repository writer chose, sign-up opened), and a preview is
 * refreshed on every push, with no administrator looking. The keys left out are named in the report.
 */
function schemaPart(body: unknown): { body: unknown; skipped: string[] } {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return { body, skipped: [] };
  const skipped = ['webhooks', 'settings'].filter((k) => Object.hasOwn(body, k));
  const kept = Object.entries(body).filter(([k]) => !skipped.includes(k));
  return { body: dictFrom(kept), skipped };
}

/** A sync under way: the site it writes, the commit it reads, and the context its commands carry. */
interface SyncRun {
  deps: AppDeps;
  caller: Principal;
  integrationId: string;
  /** The integration's site, or the preview's. */
  siteId: string;
  sha: string;
  branch: string;
  /** Actor type `gitops` on behalf of the caller, with the commit as correlation id. */
  gitops: CommandContext;
  now: string;
}

/** A declared intent the site does not hold as declared: what the reconciliation writes. */
interface Pending {
  intent: Declared;
  live: Record<string, unknown> | null;
  fields: string[];
}

/** The drift scan's findings, with the intents the previous sync recorded. */
interface DriftScan {
  drift: SyncReport['drift'];
  pending: Pending[];
  before: GitIntentRow[];
  /** `collection/itemId` of every declared intent. */
  declared: Set<string>;
}

/**
 * `POST /integrations/git/:id/gitops/sync`: reads the intents of the integration's branch through the provider,
 * records them as content intents, scans the drift (missing, different, extra) and, unless `dryRun`, reconciles
 * through the item commands: each create or update is authorized as the caller (never more) and written under
 * actor type `gitops` with the commit as its correlation id. A refused intent is reported; the others apply.
 * `target` applies them to another site (a preview) as of another commit; the caller is then a principal there.
 */
export async function syncIntents(
  deps: AppDeps,
  caller: Principal,
  ctx: CommandContext,
  integrationId: string,
  opts: {
    dryRun: boolean;
    /** Another site to apply the intents to, at a given commit (a preview, at its pull request's head). */
    target?: { siteId: string; ref: string; sha: string };
  },
): Promise<SyncReport> {
  const { integration, port } = await repositoryFor(deps, ctx.siteId, integrationId);
  const siteId = opts.target?.siteId ?? ctx.siteId;
  const branch = opts.target?.ref ?? integration.syncConfig.branch;
  const sha = opts.target?.sha ?? (await port.branchHead(branch));
  const read = await readIntents(port, sha, integration.syncConfig.intentsPath);
  const intents = declaredIntents(read);
  const run: SyncRun = {
    deps,
    caller,
    integrationId,
    siteId,
    sha,
    branch,
    gitops: gitopsContext(ctx, integrationId, siteId, sha),
    now: ctx.now.toISOString(),
  };
  const schemaOnly = Boolean(opts.target);
  const config = read.manifest && (await importManifest(run, read.manifest, { dryRun: opts.dryRun, schemaOnly }));
  const scan = await scanDrift(run, intents);
  const report: SyncReport = {
    sha,
    branch,
    dryRun: opts.dryRun,
    files: new Set(intents.map((i) => i.path)).size,
    intents: intents.length,
    drift: scan.drift,
    applied: [],
    refused: [],
    config,
  };
  if (opts.dryRun) return report;
  await recordIntents(run, intents, scan);
  await reconcile(run, scan.pending, report);
  await recordSync(run, report, ctx.actor.id);
  return report;
}

/** Item intents under their collection, page intents under `@page` by slug: one list for the scan and the writes. */
function declaredIntents(read: { items: ItemIntent[]; pages: PageIntent[] }): Declared[] {
  return [
    ...read.items.map((i) => ({
      path: i.path,
      collection: i.collection,
      itemId: String(i.id),
      values: i.values,
      id: i.id,
    })),
    ...read.pages.map((p) => ({ path: p.path, collection: PAGE_INTENTS, itemId: p.slug, values: p.values })),
  ];
}

/** The context of the sync's commands: on the written site, as the integration on behalf of the caller. */
function gitopsContext(ctx: CommandContext, integrationId: string, siteId: string, sha: string): CommandContext {
  const actor: ActorRef = { type: 'gitops', id: integrationId, onBehalfOf: ctx.actor.id };
  return { siteId, actor, now: ctx.now, metadata: { ...ctx.metadata, siteId, actor, correlationId: sha } };
}

/**
 * The manifest first (items may need the collections and fields it makes): planned, and applied unless a dry run,
 * as a configuration import is (merge: nothing it leaves out is deleted; nothing destructive), by an administrator
 * of the site only. Its problems refuse the whole sync, as an unreadable intent file does. A preview takes only
 * its schema part (`schemaOnly`).
 */
async function importManifest(
  run: SyncRun,
  manifest: { path: string; body: unknown },
  opts: { dryRun: boolean; schemaOnly: boolean },
): Promise<NonNullable<SyncReport['config']>> {
  run.deps.authorizer.requireAdministrator(run.caller);
  const { body, skipped } = opts.schemaOnly ? schemaPart(manifest.body) : { body: manifest.body, skipped: [] };
  const { version: _v, ...r } = await importConfig(run.deps, run.gitops, {
    body,
    mode: 'merge',
    dryRun: opts.dryRun,
    allowDestructive: false,
    source: 'gitops',
  });
  return { path: manifest.path, ...r, ...(skipped.length ? { skipped } : {}) };
}

/** What lives now: an item's values, or a page's title and layout (found by slug). */
async function liveOf(run: SyncRun, collection: string, itemId: string): Promise<Record<string, unknown> | null> {
  const { deps, siteId } = run;
  if (collection !== PAGE_INTENTS) return (await deps.items.find(siteId, collection, itemId))?.record ?? null;
  const page = await readAsSite(deps.db, siteId, (db) => findPageBySlug(db, siteId, itemId, false));
  return page && { id: page.id, title: page.title, layoutConfig: page.layoutConfig };
}

/**
 * Each declared intent against what lives (missing, different or in sync), then the intents the previous sync
 * recorded and this commit no longer declares: those whose item still lives are extra.
 */
async function scanDrift(run: SyncRun, intents: Declared[]): Promise<DriftScan> {
  const declared = new Set(intents.map((i) => `${i.collection}/${i.itemId}`));
  const before = await readAsSite(run.deps.db, run.siteId, (db) => listIntents(db, run.siteId, run.integrationId));
  const drift: SyncReport['drift'] = { missing: [], different: [], extra: [], inSync: 0 };
  const pending: Pending[] = [];
  for (const intent of intents) {
    const { path, collection, itemId } = intent;
    const live = await liveOf(run, collection, itemId);
    const fields = differingFields(intent, live);
    if (!live) drift.missing.push({ path, collection, itemId });
    else if (fields.length) drift.different.push({ path, collection, itemId, fields });
    else drift.inSync++;
    if (!live || fields.length) pending.push({ intent, live, fields });
  }
  for (const b of before) {
    if (declared.has(`${b.collection}/${b.itemId}`)) continue;
    if (await liveOf(run, b.collection, b.itemId))
      drift.extra.push({ path: b.path, collection: b.collection, itemId: b.itemId });
  }
  return { drift, pending, before, declared };
}

/** The content intents as of this commit: new or changed ones recorded, those no longer declared removed. */
async function recordIntents(run: SyncRun, intents: Declared[], scan: DriftScan): Promise<void> {
  const { deps, siteId, integrationId, sha, now } = run;
  const { metadata } = run.gitops;
  for (const i of intents) {
    const { collection, itemId, path, values } = i;
    await handleCommand(
      deps.store,
      intentDecider,
      gitIntentStream(siteId, integrationId, collection, itemId),
      { type: 'SetIntent', data: { integrationId, collection, itemId, path, sha, values, at: now } },
      { metadata },
    );
  }
  for (const b of scan.before)
    if (!scan.declared.has(`${b.collection}/${b.itemId}`))
      await handleCommand(
        deps.store,
        intentDecider,
        gitIntentStream(siteId, integrationId, b.collection, b.itemId),
        { type: 'RemoveIntent', data: { integrationId, collection: b.collection, itemId: b.itemId, sha, at: now } },
        { metadata },
      );
}

/**
 * Writes the pending intents in order, each as the caller may: a refusal (a domain error) is reported and the others
 * apply; any other failure ends the sync.
 */
async function reconcile(run: SyncRun, pending: Pending[], report: SyncReport): Promise<void> {
  const guard = run.deps.items.check;
  const pages = pageWrites(run.deps.store);
  for (const { intent, live, fields } of pending) {
    const at = { path: intent.path, collection: intent.collection, itemId: intent.itemId };
    const changes = dictFrom(fields.map((f) => [f, intent.values[f]] as const));
    try {
      if (intent.collection === PAGE_INTENTS) await writePage(run, pages, { intent, live, changes });
      else await writeItem(run, guard, { intent, live, changes });
      report.applied.push(
        live ? { ...at, action: 'updated', fields } : { ...at, action: 'created', fields: Object.keys(intent.values) },
      );
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      report.refused.push({ ...at, code: err.code, message: err.message });
    }
  }
}

/** One intent's write: what it declares, what lives, and the fields that differ with their declared values. */
interface IntentWrite {
  intent: Declared;
  live: Record<string, unknown> | null;
  changes: Record<string, unknown>;
}

/** Pages: the pages resource's rule, as the caller; a new page is published, as one made through the API. */
async function writePage(
  run: SyncRun,
  pages: ReturnType<typeof pageWrites>,
  { intent, live, changes }: IntentWrite,
): Promise<void> {
  const { siteId, now } = run;
  const { metadata } = run.gitops;
  await run.deps.authorizer.require(run.caller, RESOURCES.pages, live ? 'update' : 'create');
  const page = intent.values as PageIntent['values'];
  const by = run.gitops.actor.id;
  if (!live)
    await pages.create(
      siteId,
      { type: 'CreatePage', data: { pageId: newId(), slug: intent.itemId, status: 'published', ...page, now, by } },
      metadata,
    );
  else
    await pages.update(
      siteId,
      intent.itemId,
      { type: 'UpdatePage', data: { pageId: String(live.id), ...changes, now, by } },
      metadata,
    );
}

/** Items: created or updated through the item commands, each authorized as the caller. */
async function writeItem(
  run: SyncRun,
  guard: ItemsApi['check'],
  { intent, live, changes }: IntentWrite,
): Promise<void> {
  const { deps, caller, gitops } = run;
  const s = await guard.collection(caller, intent.collection);
  if (!live) {
    const items = await guard.authorizeCreate(caller, s, [{ ...intent.values, id: intent.id }], false);
    await deps.items.write.create(gitops, { schema: s, items, bulk: false, as: caller });
  } else {
    await guard.authorizeUpdate(caller, s, intent.itemId, changes, (current) => ({ ...current, ...changes }));
    await deps.items.write.update(gitops, { schema: s, id: intent.itemId, changes, as: caller });
  }
}

/** The sync's record on the integration's sync stream: counts of the drift, and what was applied and refused. */
async function recordSync(run: SyncRun, report: SyncReport, by: string): Promise<void> {
  const { integrationId, sha, branch, now } = run;
  const { drift, config } = report;
  await handleCommand(
    run.deps.store,
    syncDecider,
    gitSyncStream(run.siteId, integrationId),
    {
      type: 'RecordSync',
      data: {
        integrationId,
        sha,
        branch,
        files: report.files,
        intents: report.intents,
        drift: {
          missing: drift.missing.length,
          different: drift.different.length,
          extra: drift.extra.length,
          inSync: drift.inSync,
        },
        applied: report.applied,
        refused: report.refused,
        config: config && { path: config.path, ...(config.applied ?? { created: 0, updated: 0, deleted: 0 }) },
        at: now,
        by,
      },
    },
    { metadata: run.gitops.metadata },
  );
}
