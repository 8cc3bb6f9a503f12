import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { fold } from '../../kernel/es/decider.ts';
import { deciderSpec, runCommands } from '../../../test/support/decider-spec.ts';
import {
  ciRunDecider,
  pullRequestDecider,
  type ObserveCiRun,
  type ObservePullRequest,
} from './git.activity.decider.ts';
import type { GitCiFailed, GitCiRunObserved, GitPullRequestObserved } from '../../contracts/git/git.events.ts';

const at = '2026-03-01T10:00:00.000Z';
const minute = (m: number) => `2026-03-01T09:${String(m).padStart(2, '0')}:00.000Z`;

describe('PullRequest', () => {
  const given = deciderSpec(pullRequestDecider);
  const pr = (deliveryKey: string, updatedAt: string, over: Partial<ObservePullRequest['data']> = {}) => ({
    integrationId: 'g1',
    deliveryKey,
    number: 7,
    title: 'Add the pricing page',
    state: 'open' as const,
    action: 'opened',
    headRef: 'pricing',
    headSha: 'abc1234',
    baseRef: 'main',
    fromFork: false,
    url: 'https://github.com/acme/site/pull/7',
    updatedAt,
    at,
    ...over,
  });
  const observe = (...args: Parameters<typeof pr>): ObservePullRequest => ({
    type: 'ObservePullRequest',
    data: pr(...args),
  });
  const observed = (...args: Parameters<typeof pr>): GitPullRequestObserved => ({
    type: 'GitPullRequestObserved',
    data: pr(...args),
  });
  const merged = { state: 'merged' as const, action: 'closed' };

  it('records the first observation', () =>
    given([])
      .when(observe('d1', minute(0)))
      .then([observed('d1', minute(0))]));
  it('records a newer observation', () =>
    given([observed('d1', minute(0))])
      .when(observe('d2', minute(5), merged))
      .then([observed('d2', minute(5), merged)]));
  it('records another delivery of the same moment', () =>
    given([observed('d1', minute(0))])
      .when(observe('d2', minute(0), { action: 'labeled' }))
      .then([observed('d2', minute(0), { action: 'labeled' })]));
  it('records a redelivery without a new event', () =>
    given([observed('d1', minute(0))])
      .when(observe('d1', minute(0)))
      .then([]));
  it('does not let a late opened reopen a merged pull request', () =>
    given([observed('d2', minute(5), merged)])
      .when(observe('d1', minute(0)))
      .then([]));

  it('evolve keeps the newest time and the last 32 deliveries', () => {
    const events = Array.from({ length: 40 }, (_, i) => observed(`d${i}`, minute(i)));
    const s = fold(pullRequestDecider, events);
    expect(s.updatedAt).toBe(minute(39));
    expect(s.keys).toEqual(events.slice(8).map((e) => e.data.deliveryKey));
  });

  it('records each delivery at most once and never goes back in time', () =>
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom('d1', 'd2', 'd3', 'd4'), fc.integer({ min: 0, max: 9 })), { maxLength: 20 }),
        (deliveries) => {
          const commands = deliveries.map(([key, m]) => observe(key, minute(m)));
          const { state, events } = runCommands(pullRequestDecider, commands);
          const keys = events.map((e) => e.data.deliveryKey);
          expect(new Set(keys).size).toBe(keys.length);
          const times = events.map((e) => e.data.updatedAt);
          expect(times).toEqual([...times].sort());
          expect(fold(pullRequestDecider, events)).toEqual(state);
        },
      ),
    ));
});

describe('CiRun', () => {
  const given = deciderSpec(ciRunDecider);
  const run = (deliveryKey: string, state: GitCiRunObserved['data']['state'], updatedAt: string, ref = 'main') => ({
    integrationId: 'g1',
    deliveryKey,
    source: 'check_run' as const,
    runId: '99',
    name: 'build',
    sha: 'abc1234',
    ref,
    state,
    url: 'https://github.com/acme/site/runs/99',
    updatedAt,
    at,
  });
  const observe = (...args: Parameters<typeof run>): ObserveCiRun => ({
    type: 'ObserveCiRun',
    data: run(...args),
    branch: 'main',
  });
  const observed = (...args: Parameters<typeof run>): GitCiRunObserved => ({
    type: 'GitCiRunObserved',
    data: run(...args),
  });
  const failed = (ref: string, severity: 'warning' | 'critical'): GitCiFailed => ({
    type: 'git_ci_failed',
    data: {
      integrationId: 'g1',
      source: 'check_run',
      runId: '99',
      name: 'build',
      sha: 'abc1234',
      ref,
      url: 'https://github.com/acme/site/runs/99',
      severity,
      at,
    },
  });

  it('records a run that is not failing', () =>
    given([])
      .when(observe('d1', 'running', minute(0)))
      .then([observed('d1', 'running', minute(0))]));
  it('reports a failure on the integration’s branch as critical', () =>
    given([observed('d1', 'running', minute(0))])
      .when(observe('d2', 'failure', minute(1)))
      .then([observed('d2', 'failure', minute(1)), failed('main', 'critical')]));
  it('reports a failure on another branch as a warning', () =>
    given([])
      .when(observe('d1', 'failure', minute(0), 'pricing'))
      .then([observed('d1', 'failure', minute(0), 'pricing'), failed('pricing', 'warning')]));
  it('does not report a failure again while the run stays failed', () =>
    given([observed('d1', 'failure', minute(0))])
      .when(observe('d2', 'failure', minute(1)))
      .then([observed('d2', 'failure', minute(1))]));
  it('reports a rerun that fails again', () =>
    given([observed('d1', 'failure', minute(0)), observed('d2', 'running', minute(1))])
      .when(observe('d3', 'failure', minute(2)))
      .then([observed('d3', 'failure', minute(2)), failed('main', 'critical')]));
  it('records a redelivery without a new event', () =>
    given([observed('d1', 'running', minute(0))])
      .when(observe('d1', 'running', minute(0)))
      .then([]));
  it('ignores a late delivery older than the stream’s state', () =>
    given([observed('d2', 'success', minute(5))])
      .when(observe('d1', 'failure', minute(0)))
      .then([]));
});
