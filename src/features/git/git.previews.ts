import type { AppDeps } from '../../deps.ts';
import type { Decider } from '../../kernel/es/decider.ts';
import type { ActorRef, EventMetadata, NewEvent, StoredEvent } from '../../kernel/es/event.ts';
import type { AppendRequest, ExpectedVersion } from '../../kernel/es/event-store.ts';
import { handleCommand, readState } from '../../kernel/es/handle-command.ts';
import type { StoredEventOf } from '../../kernel/es/projector.ts';
import { defineReactor, reactionMetadata, type Reactor } from '../../kernel/es/reactor.ts';
import type { Principal } from '../../kernel/http/access.ts';
import { DomainError } from '../../kernel/http/errors.ts';
import { asSystem, previewSiteId, readAsSite } from '../../kernel/tenancy/site.ts';
import { siteHead, siteStreamEvents } from '../../../projections/event-log/index.ts';
import { duePreviews, livePreviewsOf } from '../../../projections/git-integrations/index.ts';
import { findUserForToken } from '../../../projections/users/index.ts';
import { findSite, siteCreator } from '../../../projections/sites/index.ts';
import { userActor } from '../auth/index.ts';
import { isSystemCollection } from '../../contracts/schema/system-collections.types.ts';
import { createSite, deleteSite } from '../sites/index.ts';
import { siteStream } from '../../contracts/sites/site.events.ts';
import type { GitIntegrationState } from './git.decider.ts';
import {
  gitPreviewStream,
  type GitIntegrationDeleted,
  type GitPreviewEvent,
  type GitPullRequestObserved,
  type PreviewEnd,
  type PreviewIntents,
} from '../../contracts/git/git.events.ts';
import { syncIntents } from './git.gitops.ts';
import { findIntegration } from './git.commands.ts';

export const GIT_PREVIEWER = 'git-previewer';
const PREVIEWER: ActorRef = { type: 'system', id: GIT_PREVIEWER };

/** The streams a preview copies from its base site: schema (collections, fields, relations), roles, items, pages. */
const COPIED = ['schema', 'access', 'item', 'page', 'page-slug'] as const;
/** Events read and appended per round of the copy. */
const COPY_PAGE = 2000;

/** A pull request's previews as their stream holds them. */
export interface PreviewState {
  /** The last generation used (its site id is taken, whatever became of it). */
  generation: number;
  /** A preview whose seed began and did not complete (a crash): torn down before the next one. */
  provisioning: string | null;
  live: string | null;
  headSha: string | null;
}

type PreviewCommand =
  | { type: 'Begin'; event: Extract<GitPreviewEvent, { type: 'GitPreviewProvisioning' }> }
  | { type: 'Complete'; event: Extract<GitPreviewEvent, { type: 'GitPreviewProvisioned' }> }
  | { type: 'Refresh'; event: Extract<GitPreviewEvent, { type: 'GitPreviewRefreshed' }> }
  | { type: 'End'; event: Extract<GitPreviewEvent, { type: 'GitPreviewTornDown' }> }
  | { type: 'Refuse'; event: Extract<GitPreviewEvent, { type: 'GitPreviewRefused' }> };

/** A pull request's previews: one at a time, each begun, completed, refreshed and ended once. */
export const previewDecider: Decider<PreviewState, PreviewCommand, GitPreviewEvent> = {
  initialState: () => ({ generation: 0, provisioning: null, live: null, headSha: null }),
  evolve: (s, e) => {
    switch (e.type) {
      case 'GitPreviewProvisioning':
        return { ...s, generation: e.data.generation, provisioning: e.data.previewSiteId };
      case 'GitPreviewProvisioned':
        return { ...s, provisioning: null, live: e.data.previewSiteId, headSha: e.data.headSha };
      case 'GitPreviewRefreshed':
        return { ...s, headSha: e.data.headSha };
      case 'GitPreviewTornDown':
        return { ...s, provisioning: null, live: null, headSha: null };
      case 'GitPreviewRefused':
        return s;
    }
  },
  decide: (c, s) => {
    const id = 'previewSiteId' in c.event.data ? c.event.data.previewSiteId : null;
    switch (c.type) {
      case 'Begin':
        return s.live || s.provisioning ? [] : [c.event];
      case 'Complete':
        return s.provisioning === id ? [c.event] : [];
      case 'Refresh':
        return s.live === id && s.headSha !== c.event.data.headSha ? [c.event] : [];
      case 'End':
        return s.live === id || s.provisioning === id ? [c.event] : [];
      case 'Refuse':
        return s.live || s.provisioning ? [] : [c.event];
    }
  },
};

/** What the previewer does for one event (pure `react`'s answer). */
export type PreviewWork =
  | { kind: 'provision'; number: number; headSha: string; headRef: string }
  | { kind: 'refresh'; number: number; siteId: string; headSha: string; headRef: string }
  | { kind: 'teardown'; number: number; siteId: string; reason: PreviewEnd };

export interface PreviewContext {
  integration: GitIntegrationState;
  preview: PreviewState;
  /** The integration's live previews (for its deletion). */
  live: { number: number; siteId: string }[];
}

/**
 * The previews a pull request's change calls for (pure): opened (or any news of an open one without a preview) →
 * provisioned; new commits → refreshed; closed or merged → torn down; a seed cut short by a crash → torn down and
 * made again; the integration deleted → all its previews torn down. Previews are made only while
 * `sync_config.preview` is on, for pull requests from the repository itself (not a fork) into its `branch`.
 */
export function previewWork(
  e: StoredEventOf<GitPullRequestObserved | GitIntegrationDeleted>,
  ctx: PreviewContext,
): PreviewWork[] {
  if (e.type === 'GitIntegrationDeleted')
    return ctx.live.map((p) => ({
      kind: 'teardown',
      number: p.number,
      siteId: p.siteId,
      reason: 'integration_deleted',
    }));
  const d = e.data;
  const p = ctx.preview;
  const current = p.live ?? p.provisioning;
  if (d.state !== 'open')
    return current
      ? [{ kind: 'teardown', number: d.number, siteId: current, reason: d.state === 'merged' ? 'merged' : 'closed' }]
      : [];
  // Only pull requests from the repository itself, into the branch the site follows: anyone can open one from a fork.
  const integration = ctx.integration;
  if (!integration?.syncConfig.preview || d.fromFork || d.baseRef !== integration.syncConfig.branch) return [];
  const provision: PreviewWork = { kind: 'provision', number: d.number, headSha: d.headSha, headRef: d.headRef };
  if (p.provisioning)
    return [{ kind: 'teardown', number: d.number, siteId: p.provisioning, reason: 'interrupted' }, provision];
  if (!p.live) return [provision];
  if (p.headSha !== d.headSha)
    return [{ kind: 'refresh', number: d.number, siteId: p.live, headSha: d.headSha, headRef: d.headRef }];
  return [];
}

/**
 * A base stream's name on the preview: the site part, and the aggregate id of the per-site streams (schema, access:
 * `<site>/schema/<site>`), are the preview's.
 */
function previewStreamOf(streamId: string, base: string, preview: string): string {
  const [, category = '', ...rest] = streamId.split('/');
  const id = rest.join('/');
  const perSite = (category === 'schema' || category === 'access') && id === base;
  return `${preview}/${category}/${perSite ? preview : id}`;
}

/** Files (a system collection's items) stay the base's: their bytes are not copied. */
const isCopied = (streamId: string) => {
  const [, category, collection] = streamId.split('/');
  return !(category === 'item' && collection !== undefined && isSystemCollection(collection));
};

/**
 * Copies the base site's schema, roles, items (published and drafts, with their histories) and pages into the
 * preview site as of the base's last event now: their events, each under the preview's stream of the same name,
 * appended in rounds of many streams at once (not item by item). Files stay the base's: their bytes are not copied.
 */
export async function seedPreview(deps: AppDeps, base: string, preview: string): Promise<number> {
  const upTo = await readAsSite(deps.db, base, (db) => siteHead(db, base));
  if (upTo === null) return 0;
  const versions = new Map<string, number>();
  let after: string | null = null;
  let copied = 0;
  for (;;) {
    const rows = await readAsSite(deps.db, base, (db) =>
      siteStreamEvents(db, base, { categories: COPIED, after, upTo, limit: COPY_PAGE }),
    );
    if (rows.length === 0) return copied;
    after = rows.at(-1)!.pos;
    const streams = new Map<string, NewEvent[]>();
    for (const r of rows) {
      if (!isCopied(r.stream_id)) continue;
      const streamId = previewStreamOf(r.stream_id, base, preview);
      const metadata: EventMetadata = { ...r.metadata, siteId: preview };
      const list = streams.get(streamId) ?? [];
      list.push({ type: r.type, data: r.data, schemaVersion: r.schema_version, metadata });
      streams.set(streamId, list);
    }
    const batch: AppendRequest[] = [...streams].map(([streamId, events]) => ({
      streamId,
      events,
      expectedVersion: (versions.get(streamId) ?? 'no_stream') as ExpectedVersion,
    }));
    if (batch.length === 0) continue;
    const results = await deps.store.appendMany(batch);
    results.forEach((r, i) => versions.set(batch[i]!.streamId, r.nextExpectedVersion));
    copied += batch.reduce((n, b) => n + b.events.length, 0);
  }
}

/**
 * The branch's intents applied to the preview as the integration's creator would apply them (their role on the base
 * site is theirs on its previews), never with more rights; what could not run is recorded, not thrown.
 */
async function applyIntents(
  deps: AppDeps,
  e: StoredEvent,
  integration: NonNullable<GitIntegrationState>,
  target: { siteId: string; ref: string; sha: string },
): Promise<PreviewIntents> {
  const user = await findUserForToken(deps.db, integration.createdBy, null);
  if (!user) return { applied: 0, refused: 0, error: 'PERMISSION_DENIED' };
  const principal: Principal = { actor: userActor(user, { sessionId: null, amr: [] }), site: { id: target.siteId } };
  const actor: ActorRef = { type: 'user', id: user.userId };
  const now = deps.clock.now();
  try {
    const report = await syncIntents(
      deps,
      principal,
      { siteId: e.siteId, actor, now, metadata: reactionMetadata(e, actor, now) },
      integration.integrationId,
      { dryRun: false, target },
    );
    return { applied: report.applied.length, refused: report.refused.length, error: null };
  } catch (err) {
    if (err instanceof DomainError) return { applied: 0, refused: 0, error: err.code };
    throw err;
  }
}

/**
 * Ends a preview: the site is deleted if the previewer made it (every read model drops its rows; gone already, or
 * never the previewer's: left alone), then the end is recorded. Safe to repeat.
 */
async function tearDown(
  deps: AppDeps,
  base: string,
  metadata: EventMetadata,
  integrationId: string,
  w: { number: number; siteId: string; reason: PreviewEnd },
): Promise<void> {
  const at = metadata.occurredAt;
  if ((await siteCreator(deps.db, w.siteId)) === GIT_PREVIEWER)
    await deleteSite(
      deps,
      { metadata: { ...metadata, siteId: w.siteId } },
      { siteId: w.siteId, reason: `preview ${w.reason}`, by: GIT_PREVIEWER, now: at },
    );
  await handleCommand(
    deps.store,
    previewDecider,
    gitPreviewStream(base, integrationId, w.number),
    {
      type: 'End',
      event: {
        type: 'GitPreviewTornDown',
        data: { integrationId, number: w.number, previewSiteId: w.siteId, reason: w.reason, at },
      },
    },
    { metadata },
  );
}

/**
 * The id of the pull request's next preview, or why there is none: the integration has its most live previews, or
 * no free id is left (ids are never given twice, and another integration's preview of the same number, or an old
 * site, may hold one).
 */
async function nextPreviewId(
  deps: AppDeps,
  base: string,
  integrationId: string,
  number: number,
  after: number,
): Promise<{ siteId: string; generation: number } | { refused: string }> {
  const live = await readAsSite(deps.db, base, (db) => livePreviewsOf(db, base, integrationId));
  if (live.length >= deps.config.SVC_GIT_MAX_PREVIEWS)
    return {
      refused: `the integration has ${String(live.length)} live previews, the most SVC_GIT_MAX_PREVIEWS allows`,
    };
  for (let generation = after + 1; generation <= after + 20; generation++) {
    const siteId = previewSiteId(base, number, generation);
    if (!siteId) break;
    if ((await deps.store.streamVersion(siteStream(siteId))) === null) return { siteId, generation };
  }
  return { refused: 'no free preview site id (63 characters at most; ids are never given twice)' };
}

async function provision(
  deps: AppDeps,
  e: StoredEvent,
  integration: NonNullable<GitIntegrationState>,
  w: { number: number; headSha: string; headRef: string },
): Promise<void> {
  const base = e.siteId;
  const integrationId = integration.integrationId;
  const stream = gitPreviewStream(base, integrationId, w.number);
  const now = deps.clock.now();
  const at = now.toISOString();
  const metadata = reactionMetadata(e, PREVIEWER, now);
  const { state } = await readState(deps.store, previewDecider, stream);
  if (state.live || state.provisioning) return;
  const next = await nextPreviewId(deps, base, integrationId, w.number, state.generation);
  if ('refused' in next) {
    await handleCommand(
      deps.store,
      previewDecider,
      stream,
      {
        type: 'Refuse',
        event: { type: 'GitPreviewRefused', data: { integrationId, number: w.number, reason: next.refused, at } },
      },
      { metadata },
    );
    return;
  }
  const { siteId, generation } = next;
  const begun = await handleCommand(
    deps.store,
    previewDecider,
    stream,
    {
      type: 'Begin',
      event: {
        type: 'GitPreviewProvisioning',
        data: { integrationId, number: w.number, previewSiteId: siteId, generation, at },
      },
    },
    { metadata },
  );
  if (begun.events.length === 0) return;
  const baseSite = await findSite(deps.db, base);
  let copied: number;
  try {
    await createSite(
      deps,
      { metadata: { ...metadata, siteId } },
      {
        siteId,
        name: `${baseSite?.name ?? base} · PR #${String(w.number)}`.slice(0, 200),
        createdBy: GIT_PREVIEWER,
        now: at,
      },
    );
    copied = await seedPreview(deps, base, siteId);
  } catch (err) {
    // A refusal (the id taken meanwhile, a copy the store refuses) ends this preview; anything else is thrown and
    // retried, and the begun preview is then torn down and made again.
    if (!(err instanceof DomainError)) throw err;
    await tearDown(deps, base, metadata, integrationId, { number: w.number, siteId, reason: 'interrupted' });
    return;
  }
  const intents = await applyIntents(deps, e, integration, { siteId, ref: w.headRef, sha: w.headSha });
  await handleCommand(
    deps.store,
    previewDecider,
    stream,
    {
      type: 'Complete',
      event: {
        type: 'GitPreviewProvisioned',
        data: { integrationId, number: w.number, previewSiteId: siteId, headSha: w.headSha, copied, intents, at },
      },
    },
    { metadata },
  );
}

async function refresh(
  deps: AppDeps,
  e: StoredEvent,
  integration: NonNullable<GitIntegrationState>,
  w: { number: number; siteId: string; headSha: string; headRef: string },
): Promise<void> {
  const stream = gitPreviewStream(e.siteId, integration.integrationId, w.number);
  // Still live (the TTL cleanup may have ended it since): no write lands on a deleted site.
  if ((await readState(deps.store, previewDecider, stream)).state.live !== w.siteId) return;
  const intents = await applyIntents(deps, e, integration, { siteId: w.siteId, ref: w.headRef, sha: w.headSha });
  const now = deps.clock.now();
  await handleCommand(
    deps.store,
    previewDecider,
    stream,
    {
      type: 'Refresh',
      event: {
        type: 'GitPreviewRefreshed',
        data: {
          integrationId: integration.integrationId,
          number: w.number,
          previewSiteId: w.siteId,
          headSha: w.headSha,
          intents,
          at: now.toISOString(),
        },
      },
    },
    { metadata: reactionMetadata(e, PREVIEWER, now) },
  );
}

/**
 * Preview sites for pull requests (`sync_config.preview`): provisioned when one opens, refreshed on new commits,
 * torn down when it closes or merges, or when its integration is deleted. Each step is recorded on the pull
 * request's preview stream first or last, so a step cut short by a crash is completed (or undone) when the event
 * is handled again.
 */
export function gitPreviewer(deps: AppDeps): Reactor {
  return defineReactor<GitPullRequestObserved | GitIntegrationDeleted, PreviewContext, PreviewWork>({
    name: GIT_PREVIEWER,
    handles: ['GitPullRequestObserved', 'GitIntegrationDeleted'],
    load: async (e) => {
      const id = e.data.integrationId;
      if (e.type === 'GitIntegrationDeleted') {
        const live = await readAsSite(deps.db, e.siteId, (db) => livePreviewsOf(db, e.siteId, id));
        return { integration: null, preview: previewDecider.initialState(), live };
      }
      const preview = (await readState(deps.store, previewDecider, gitPreviewStream(e.siteId, id, e.data.number)))
        .state;
      return { integration: await findIntegration(deps, e.siteId, id), preview, live: [] };
    },
    react: previewWork,
    send: async (w, e) => {
      const integrationId = e.data.integrationId;
      if (w.kind === 'teardown')
        return tearDown(deps, e.siteId, reactionMetadata(e, PREVIEWER, deps.clock.now()), integrationId, w);
      const integration = await findIntegration(deps, e.siteId, integrationId);
      if (!integration) return;
      if (w.kind === 'provision') return provision(deps, e, integration, w);
      return refresh(deps, e, integration, w);
    },
  });
}

/** The TTL cleanup (a leader loop): previews older than their integration's `previewTtlHours` are torn down. */
export async function expirePreviews(deps: AppDeps): Promise<number> {
  const now = deps.clock.now();
  const due = await asSystem(deps.db, (db) => duePreviews(db, now));
  for (const p of due) {
    const metadata: EventMetadata = {
      siteId: p.baseSiteId,
      actor: PREVIEWER,
      correlationId: `preview-expiry:${p.siteId}`,
      causationId: null,
      requestId: null,
      occurredAt: now.toISOString(),
    };
    await tearDown(deps, p.baseSiteId, metadata, p.integrationId, {
      number: p.number,
      siteId: p.siteId,
      reason: 'expired',
    });
  }
  return due.length;
}
