import { z } from 'zod';

/** A pull request (GitHub) or merge request (GitLab) as one delivery shows it. */
export interface PullRequestSeen {
  kind: 'pull_request';
  number: number;
  title: string;
  state: 'open' | 'closed' | 'merged';
  /** What happened: opened, synchronize (new commits), closed, reopened, edited, … (the provider's word). */
  action: string;
  headRef: string;
  headSha: string;
  baseRef: string;
  /**
   * The head is in another repository (a fork) or the payload does not say: anyone can open such a pull request, so
   * it gets no preview and its intents are never applied.
   */
  fromFork: boolean;
  url: string | null;
  /** The provider's time of the change: an older delivery arriving late does not undo a newer one. */
  updatedAt: string;
}

export const CI_STATES = ['queued', 'running', 'success', 'failure', 'cancelled', 'skipped'] as const;
export type CiState = (typeof CI_STATES)[number];
export type CiSource = 'check_run' | 'status' | 'pipeline';

/** A CI run (a GitHub check run or commit status, a GitLab pipeline) as one delivery shows it. */
export interface CiRunSeen {
  kind: 'ci';
  source: CiSource;
  /** The provider's id of the run: a check run's or pipeline's id; a commit status's commit and context. */
  runId: string;
  name: string;
  sha: string;
  /** The branch the run is for, when the provider says. */
  ref: string | null;
  state: CiState;
  url: string | null;
  updatedAt: string;
}

/** New commits on a branch. */
export interface PushSeen {
  kind: 'push';
  ref: string;
  sha: string;
}

export type Observation = PullRequestSeen | CiRunSeen | PushSeen;

const text = (max: number) => z.string().max(max);
const sha = z.string().regex(/^[0-9a-f]{7,64}$/i);
const ref = text(255);
const url = z.string().url().max(2048).nullable().optional();
const time = z.string().datetime({ offset: true }).optional();
const id = z.union([z.number().int().nonnegative(), z.string().regex(/^\d{1,20}$/)]);

const GithubPullRequest = z.object({
  action: text(64),
  number: z.number().int().positive(),
  pull_request: z.object({
    title: text(1024),
    state: z.enum(['open', 'closed']),
    merged: z.boolean().nullable().optional(),
    html_url: url,
    updated_at: time,
    head: z.object({
      ref,
      sha,
      repo: z
        .object({ full_name: text(300) })
        .nullable()
        .optional(),
    }),
    base: z.object({
      ref,
      repo: z
        .object({ full_name: text(300) })
        .nullable()
        .optional(),
    }),
  }),
});

const GithubCheckRun = z.object({
  check_run: z.object({
    id,
    name: text(255),
    head_sha: sha,
    status: text(32),
    conclusion: text(32).nullable().optional(),
    html_url: url,
    completed_at: time.nullable(),
    started_at: time.nullable(),
    check_suite: z.object({ head_branch: ref.nullable().optional() }).optional(),
  }),
});

const GithubStatus = z.object({
  sha,
  context: text(255),
  state: z.enum(['pending', 'success', 'failure', 'error']),
  target_url: url,
  updated_at: time,
  branches: z
    .array(z.object({ name: ref }))
    .max(100)
    .optional(),
});

const GithubPush = z.object({ ref, after: sha, commits: z.array(z.unknown()) });

const GitlabMergeRequest = z.object({
  object_kind: z.literal('merge_request'),
  object_attributes: z.object({
    iid: z.number().int().positive(),
    title: text(1024),
    state: z.enum(['opened', 'closed', 'merged', 'locked']),
    action: text(64).optional(),
    source_branch: ref,
    target_branch: ref,
    last_commit: z.object({ id: sha }),
    source_project_id: z.number().int().optional(),
    target_project_id: z.number().int().optional(),
    url,
    updated_at: text(64).optional(),
  }),
});

const GitlabPipeline = z.object({
  object_kind: z.literal('pipeline'),
  object_attributes: z.object({
    id,
    ref: ref.nullable().optional(),
    sha,
    status: text(32),
    url,
    finished_at: text(64).nullable().optional(),
    created_at: text(64).nullable().optional(),
  }),
});

const GitlabPush = z.object({ object_kind: z.literal('push'), ref, after: sha });

/** GitLab writes times as `2026-01-02 10:00:00 UTC`; GitHub as ISO 8601. Unreadable: the delivery's own time. */
function isoTime(value: string | null | undefined, fallback: string): string {
  if (!value) return fallback;
  const ms = Date.parse(value.replace(/ UTC$/, 'Z').replace(/^(\d{4}-\d\d-\d\d) /, '$1T'));
  return Number.isFinite(ms) ? new Date(ms).toISOString() : fallback;
}

const branchOf = (r: string) => r.replace(/^refs\/heads\//, '');

function githubCheckState(status: string, conclusion: string | null | undefined): CiState {
  if (status === 'queued' || status === 'requested' || status === 'waiting' || status === 'pending') return 'queued';
  if (status !== 'completed') return 'running';
  switch (conclusion) {
    case 'success':
    case 'neutral':
      return 'success';
    case 'failure':
    case 'timed_out':
    case 'startup_failure':
      return 'failure';
    case 'cancelled':
      return 'cancelled';
    default:
      return 'skipped';
  }
}

const GITLAB_PIPELINE_STATES = new Map<string, CiState>([
  ['created', 'queued'],
  ['waiting_for_resource', 'queued'],
  ['preparing', 'queued'],
  ['pending', 'queued'],
  ['scheduled', 'queued'],
  ['manual', 'queued'],
  ['running', 'running'],
  ['success', 'success'],
  ['failed', 'failure'],
  ['canceled', 'cancelled'],
  ['skipped', 'skipped'],
]);

/**
 * What one delivery says, read from its signed payload alone: the event header is not covered by GitHub's
 * signature, so a payload is recognised by its shape (GitLab's carries `object_kind`). Anything this service does
 * not follow, or a payload that does not fit its shape, says nothing (`[]`), never an error: the delivery stays
 * recorded either way.
 */
export function observe(provider: 'github' | 'gitlab', payload: unknown, receivedAt: string): Observation[] {
  if (provider === 'gitlab') return observeGitlab(payload, receivedAt);
  return observeGithub(payload, receivedAt);
}

function observeGithub(payload: unknown, at: string): Observation[] {
  const pr = GithubPullRequest.safeParse(payload);
  if (pr.success) {
    const p = pr.data.pull_request;
    return [
      {
        kind: 'pull_request',
        number: pr.data.number,
        title: p.title,
        state: p.merged ? 'merged' : p.state,
        action: pr.data.action,
        headRef: p.head.ref,
        headSha: p.head.sha,
        baseRef: p.base.ref,
        fromFork: !p.head.repo || !p.base.repo || p.head.repo.full_name !== p.base.repo.full_name,
        url: p.html_url ?? null,
        updatedAt: isoTime(p.updated_at, at),
      },
    ];
  }
  const check = GithubCheckRun.safeParse(payload);
  if (check.success) {
    const c = check.data.check_run;
    return [
      {
        kind: 'ci',
        source: 'check_run',
        runId: String(c.id),
        name: c.name,
        sha: c.head_sha,
        ref: c.check_suite?.head_branch ?? null,
        state: githubCheckState(c.status, c.conclusion),
        url: c.html_url ?? null,
        updatedAt: isoTime(c.completed_at ?? c.started_at, at),
      },
    ];
  }
  const status = GithubStatus.safeParse(payload);
  if (status.success) {
    const s = status.data;
    const state: CiState = s.state === 'pending' ? 'running' : s.state === 'success' ? 'success' : 'failure';
    return [
      {
        kind: 'ci',
        source: 'status',
        runId: `${s.sha}:${s.context}`,
        name: s.context,
        sha: s.sha,
        ref: s.branches?.length === 1 ? s.branches[0]!.name : null,
        state,
        url: s.target_url ?? null,
        updatedAt: isoTime(s.updated_at, at),
      },
    ];
  }
  const push = GithubPush.safeParse(payload);
  if (push.success && push.data.ref.startsWith('refs/heads/'))
    return [{ kind: 'push', ref: branchOf(push.data.ref), sha: push.data.after }];
  return [];
}

function observeGitlab(payload: unknown, at: string): Observation[] {
  const mr = GitlabMergeRequest.safeParse(payload);
  if (mr.success) {
    const m = mr.data.object_attributes;
    return [
      {
        kind: 'pull_request',
        number: m.iid,
        title: m.title,
        state: m.state === 'opened' ? 'open' : m.state === 'merged' ? 'merged' : 'closed',
        action: m.action ?? 'update',
        headRef: m.source_branch,
        headSha: m.last_commit.id,
        baseRef: m.target_branch,
        fromFork:
          m.source_project_id === undefined ||
          m.target_project_id === undefined ||
          m.source_project_id !== m.target_project_id,
        url: m.url ?? null,
        updatedAt: isoTime(m.updated_at, at),
      },
    ];
  }
  const pipeline = GitlabPipeline.safeParse(payload);
  if (pipeline.success) {
    const p = pipeline.data.object_attributes;
    return [
      {
        kind: 'ci',
        source: 'pipeline',
        runId: String(p.id),
        name: `pipeline ${String(p.id)}`,
        sha: p.sha,
        ref: p.ref ?? null,
        state: GITLAB_PIPELINE_STATES.get(p.status) ?? 'running',
        url: p.url ?? null,
        updatedAt: isoTime(p.finished_at ?? p.created_at, at),
      },
    ];
  }
  const push = GitlabPush.safeParse(payload);
  if (push.success) return [{ kind: 'push', ref: branchOf(push.data.ref), sha: push.data.after }];
  return [];
}
