import type { Decider } from '../../kernel/es/decider.ts';
import type { GitCiFailed, GitCiRunObserved, GitPullRequestObserved } from '../../contracts/git/git.events.ts';
import type { CiState } from '../../contracts/git/git.observations.ts';

/** Deliveries a stream remembers having applied: a reactor's redelivery of one of them changes nothing. */
const REMEMBERED = 32;

interface Seen {
  /** The provider's time of the newest observation applied. */
  updatedAt: string | null;
  keys: string[];
}

const remember = (keys: string[], key: string) => [...keys.slice(-(REMEMBERED - 1)), key];

/**
 * Whether an observation is news: not a delivery applied already, not older than what the stream holds (providers
 * do not deliver in order; a late `opened` must not reopen a merged pull request).
 */
const isNews = (s: Seen, key: string, updatedAt: string) =>
  !s.keys.includes(key) && (s.updatedAt === null || updatedAt >= s.updatedAt);

export type ObservePullRequest = { type: 'ObservePullRequest'; data: GitPullRequestObserved['data'] };

/** A pull request's stream: each delivery that is news about it is recorded. */
export const pullRequestDecider: Decider<Seen, ObservePullRequest, GitPullRequestObserved> = {
  initialState: () => ({ updatedAt: null, keys: [] }),
  evolve: (s, e) => ({ updatedAt: e.data.updatedAt, keys: remember(s.keys, e.data.deliveryKey) }),
  decide: (c, s) =>
    isNews(s, c.data.deliveryKey, c.data.updatedAt) ? [{ type: 'GitPullRequestObserved', data: c.data }] : [],
};

export type ObserveCiRun = {
  type: 'ObserveCiRun';
  data: GitCiRunObserved['data'];
  /** The integration's branch: a failure there is critical. */
  branch: string;
};

/**
 * A CI run's stream: each delivery that is news is recorded, and a run that turns to failure (from any other state,
 * so a rerun that fails again is reported again) also appends `git_ci_failed`.
 */
export const ciRunDecider: Decider<Seen & { state: CiState | null }, ObserveCiRun, GitCiRunObserved | GitCiFailed> = {
  initialState: () => ({ updatedAt: null, keys: [], state: null }),
  evolve: (s, e) =>
    e.type === 'GitCiRunObserved'
      ? { updatedAt: e.data.updatedAt, keys: remember(s.keys, e.data.deliveryKey), state: e.data.state }
      : s,
  decide: (c, s) => {
    const d = c.data;
    if (!isNews(s, d.deliveryKey, d.updatedAt)) return [];
    const observed: GitCiRunObserved = { type: 'GitCiRunObserved', data: d };
    if (d.state !== 'failure' || s.state === 'failure') return [observed];
    const failed: GitCiFailed = {
      type: 'git_ci_failed',
      data: {
        integrationId: d.integrationId,
        source: d.source,
        runId: d.runId,
        name: d.name,
        sha: d.sha,
        ref: d.ref,
        url: d.url,
        severity: d.ref === c.branch ? 'critical' : 'warning',
        at: d.at,
      },
    };
    return [observed, failed];
  },
};
