import type { AppDeps } from '../../deps.ts';
import type { Decider } from '../../kernel/es/decider.ts';
import type { ActorRef } from '../../kernel/es/event.ts';
import { handleCommand } from '../../kernel/es/handle-command.ts';
import type { Principal } from '../../kernel/http/access.ts';
import type { CommandContext } from '../../kernel/http/command-meta.ts';
import { DomainError } from '../../kernel/http/errors.ts';
import { dictFrom } from '../../kernel/safe/keys.ts';
import { readAsSite } from '../../kernel/tenancy/site.ts';
import { listIntents } from '../../../projections/git-integrations/index.ts';
import { importConfig, type ImportResult } from '../config/index.ts';
import { createItems, itemGuard, readItem, updateItem } from '../items/index.ts';
import { findPageBySlug, pageWrites } from '../pages/index.ts';
import { RESOURCES } from '../../kernel/auth/authorizer.ts';
import { newId } from '../../kernel/ids.ts';
import { integrationOf } from './git.commands.ts';
import { currentToken } from './git.oauth.ts';
import { GitIntentsInvalid, GitTokenMissing } from './git.errors.ts';
import {
  gitIntentStream,
  gitSyncStream,
  type AppliedIntent,
  type GitContentIntentRemoved,
  type GitContentIntentSet,
  type GitopsSynced,
  type RefusedIntent,
} from '../../contracts/git/git.events.ts';
import {
  canonical,
  differingFields,
  INTENT_LIMITS,
  isIntentFile,
  isManifestFile,
  MANIFEST_FILE_BYTES,
  parseIntentFile,
  parseManifestFile,
  PAGE_INTENTS,
  type IntentProblem,
  type ItemIntent,
  type PageIntent,
} from './git.intents.ts';
import { repositoryOf, type RepositoryPort } from './providers/index.ts';

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

/** The repository of an integration, reached with its token. */
async function repositoryFor(deps: AppDeps, siteId: string, integrationId: string) {
  const integration = await integrationOf(deps, siteId, integrationId);
  const token = await currentToken(deps, siteId, integration);
  if (token === null) throw new GitTokenMissing({ integrationId });
  const port = repositoryOf(integration.provider, {
    repository: integration.repository,
    baseUrl: integration.baseUrl,
    token,
    allowPrivate: deps.config.SVC_GIT_ALLOW_PRIVATE,
    timeoutMs: deps.config.SVC_GIT_TIMEOUT_MS,
  });
  return { integration, port };
}

/**
 * Every intent under the folder at the commit. A file that cannot be read as intents, too many files or intents,
 * or one item declared twice refuse the whole sync (422 GIT_INTENTS_INVALID, every file's problem listed): a
 * half-read repository is no state anyone committed, so nothing is applied.
 */
export async function readIntents(
  port: RepositoryPort,
  sha: string,
  dir: string,
): Promise<{ items: ItemIntent[]; pages: PageIntent[]; manifest: { path: string; body: unknown } | null }> {
  const listed = (await port.listFiles(sha, dir)).filter((f) => isIntentFile(f.path));
  const manifests = listed.filter((f) => isManifestFile(f.path, dir));
  const files = listed.filter((f) => !isManifestFile(f.path, dir));
  const problems: IntentProblem[] = [];
  if (files.length > INTENT_LIMITS.files)
    throw new GitIntentsInvalid({
      files: [{ path: dir, problem: `more than ${String(INTENT_LIMITS.files)} intent files` }],
    });
  let manifest: { path: string; body: unknown } | null = null;
  if (manifests.length > 1)
    problems.push({ path: manifests[1]!.path, problem: `a second manifest beside ${manifests[0]!.path}` });
  else if (manifests.length === 1) {
    const f = manifests[0]!;
    const read =
      f.size !== null && f.size > MANIFEST_FILE_BYTES
        ? { path: f.path, problem: `larger than ${String(MANIFEST_FILE_BYTES)} bytes` }
        : parseManifestFile(f.path, await port.readFile(sha, f.path));
    if ('problem' in read) problems.push(read);
    else manifest = { path: f.path, body: read.manifest };
  }
  const items: ItemIntent[] = [];
  const pages: PageIntent[] = [];
  for (const f of files.sort((a, b) => (a.path < b.path ? -1 : 1))) {
    // Known before reading when the provider gives sizes; `parseIntentFile` checks the text read either way.
    if (f.size !== null && f.size > INTENT_LIMITS.fileBytes) {
      problems.push({ path: f.path, problem: `larger than ${String(INTENT_LIMITS.fileBytes)} bytes` });
      continue;
    }
    const read = parseIntentFile(f.path, await port.readFile(sha, f.path));
    if ('problem' in read) problems.push(read);
    else {
      items.push(...read.intents);
      pages.push(...read.pages);
    }
  }
  const seen = new Map<string, string>();
  const declaredOnce = (key: string, path: string) => {
    const first = seen.get(key);
    if (first !== undefined) problems.push({ path, problem: `${key} is also declared in ${first}` });
    else seen.set(key, path);
  };
  for (const i of items) declaredOnce(`${i.collection}/${String(i.id)}`, i.path);
  for (const p of pages) declaredOnce(`page ${p.slug}`, p.path);
  if (items.length + pages.length > INTENT_LIMITS.intents)
    problems.push({ path: dir, problem: `more than ${String(INTENT_LIMITS.intents)} intents` });
  if (problems.length) throw new GitIntentsInvalid({ files: problems });
  return { items, pages, manifest };
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
  const { intentsPath } = integration.syncConfig;
  const branch = opts.target?.ref ?? integration.syncConfig.branch;
  const sha = opts.target?.sha ?? (await port.branchHead(branch));
  const read = await readIntents(port, sha, intentsPath);
  const intents: Declared[] = [
    ...read.items.map((i) => ({
      path: i.path,
      collection: i.collection,
      itemId: String(i.id),
      values: i.values,
      id: i.id,
    })),
    ...read.pages.map((p) => ({ path: p.path, collection: PAGE_INTENTS, itemId: p.slug, values: p.values })),
  ];
  const files = new Set(intents.map((i) => i.path)).size;

  const actor: ActorRef = { type: 'gitops', id: integrationId, onBehalfOf: ctx.actor.id };
  const now = ctx.now.toISOString();
  const gitops: CommandContext = {
    siteId,
    actor,
    now: ctx.now,
    metadata: { ...ctx.metadata, siteId, actor, correlationId: sha },
  };

  // The manifest first (items may need the collections and fields it makes): planned, and applied unless a dry run,
  // as a configuration import is (merge: nothing it leaves out is deleted; nothing destructive), by an administrator
  // of the site only. Its problems refuse the whole sync, as an unreadable intent file does.
  let config: SyncReport['config'] = null;
  if (read.manifest) {
    deps.authorizer.requireAdministrator(caller);
    const { body, skipped } = opts.target ? schemaPart(read.manifest.body) : { body: read.manifest.body, skipped: [] };
    const { version: _v, ...r } = await importConfig(deps, gitops, {
      body,
      mode: 'merge',
      dryRun: opts.dryRun,
      allowDestructive: false,
      source: 'gitops',
    });
    config = { path: read.manifest.path, ...r, ...(skipped.length ? { skipped } : {}) };
  }

  const declared = new Set(intents.map((i) => `${i.collection}/${i.itemId}`));
  // What lives now: an item's values, or a page's title and layout (found by slug).
  const liveOf = async (collection: string, itemId: string) => {
    if (collection !== PAGE_INTENTS) return (await readItem(deps, siteId, collection, itemId))?.record ?? null;
    const page = await readAsSite(deps.db, siteId, (db) => findPageBySlug(db, siteId, itemId, false));
    return page && { id: page.id, title: page.title, layoutConfig: page.layoutConfig };
  };
  const before = await readAsSite(deps.db, siteId, (db) => listIntents(db, siteId, integrationId));
  const missing: DriftEntry[] = [];
  const different: DriftEntry[] = [];
  const extra: DriftEntry[] = [];
  let inSync = 0;
  const pending: { intent: Declared; live: Record<string, unknown> | null; fields: string[] }[] = [];
  for (const intent of intents) {
    const { itemId } = intent;
    const live = await liveOf(intent.collection, itemId);
    const fields = differingFields(intent, live);
    if (!live) missing.push({ path: intent.path, collection: intent.collection, itemId });
    else if (fields.length) different.push({ path: intent.path, collection: intent.collection, itemId, fields });
    else inSync++;
    if (!live || fields.length) pending.push({ intent, live, fields });
  }
  for (const b of before) {
    if (declared.has(`${b.collection}/${b.itemId}`)) continue;
    if (await liveOf(b.collection, b.itemId)) extra.push({ path: b.path, collection: b.collection, itemId: b.itemId });
  }
  const report: SyncReport = {
    sha,
    branch,
    dryRun: opts.dryRun,
    files,
    intents: intents.length,
    drift: { missing, different, extra, inSync },
    applied: [],
    refused: [],
    config,
  };
  if (opts.dryRun) return report;

  // The content intents as of this commit: new or changed ones recorded, those no longer declared removed.
  const metadata = gitops.metadata;
  for (const i of intents)
    await handleCommand(
      deps.store,
      intentDecider,
      gitIntentStream(siteId, integrationId, i.collection, i.itemId),
      {
        type: 'SetIntent',
        data: {
          integrationId,
          collection: i.collection,
          itemId: i.itemId,
          path: i.path,
          sha,
          values: i.values,
          at: now,
        },
      },
      { metadata },
    );
  for (const b of before)
    if (!declared.has(`${b.collection}/${b.itemId}`))
      await handleCommand(
        deps.store,
        intentDecider,
        gitIntentStream(siteId, integrationId, b.collection, b.itemId),
        { type: 'RemoveIntent', data: { integrationId, collection: b.collection, itemId: b.itemId, sha, at: now } },
        { metadata },
      );

  const guard = itemGuard(deps);
  const pages = pageWrites(deps.store);
  for (const { intent, live, fields } of pending) {
    const { itemId } = intent;
    const at = { path: intent.path, collection: intent.collection, itemId };
    const changes = dictFrom(fields.map((f) => [f, intent.values[f]] as const));
    try {
      if (intent.collection === PAGE_INTENTS) {
        // Pages: the pages resource's rule, as the caller; a new page is published, as one made through the API.
        await deps.authorizer.require(caller, RESOURCES.pages, live ? 'update' : 'create');
        const page = intent.values as PageIntent['values'];
        const by = actor.id;
        if (!live)
          await pages.create(
            siteId,
            { type: 'CreatePage', data: { pageId: newId(), slug: itemId, status: 'published', ...page, now, by } },
            metadata,
          );
        else
          await pages.update(
            siteId,
            itemId,
            { type: 'UpdatePage', data: { pageId: String(live.id), ...changes, now, by } },
            metadata,
          );
      } else {
        const s = await guard.collection(caller, intent.collection);
        if (!live) {
          const items = await guard.authorizeCreate(caller, s, [{ ...intent.values, id: intent.id }], false);
          await createItems(deps, gitops, { schema: s, items, bulk: false, as: caller });
        } else {
          await guard.authorizeUpdate(caller, s, itemId, changes, (current) => ({ ...current, ...changes }));
          await updateItem(deps, gitops, { schema: s, id: itemId, changes, as: caller });
        }
      }
      report.applied.push(
        live ? { ...at, action: 'updated', fields } : { ...at, action: 'created', fields: Object.keys(intent.values) },
      );
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      report.refused.push({ ...at, code: err.code, message: err.message });
    }
  }

  await handleCommand(
    deps.store,
    syncDecider,
    gitSyncStream(siteId, integrationId),
    {
      type: 'RecordSync',
      data: {
        integrationId,
        sha,
        branch,
        files,
        intents: intents.length,
        drift: { missing: missing.length, different: different.length, extra: extra.length, inSync },
        applied: report.applied,
        refused: report.refused,
        config: config && { path: config.path, ...(config.applied ?? { created: 0, updated: 0, deleted: 0 }) },
        at: now,
        by: ctx.actor.id,
      },
    },
    { metadata },
  );
  return report;
}
