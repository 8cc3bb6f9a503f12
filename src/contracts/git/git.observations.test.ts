import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { observe } from './git.observations.ts';

const AT = '2026-11-27T00:00:00.000Z';

describe('observe', () => {
  it('never throws, whatever JSON a verified delivery carries', () => {
    fc.assert(
      fc.property(fc.constantFrom('github' as const, 'gitlab' as const), fc.jsonValue(), (provider, payload) => {
        expect(Array.isArray(observe(provider, payload, AT))).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('reads commit statuses, failing on error as well as failure', () => {
    const status = (state: string) => ({
      sha: 'c'.repeat(40),
      context: 'ci/lint',
      state,
      target_url: null,
      updated_at: '2026-11-27T01:00:00Z',
      branches: [{ name: 'main' }],
    });
    expect(observe('github', status('error'), AT)).toEqual([
      {
        kind: 'ci',
        source: 'status',
        runId: `${'c'.repeat(40)}:ci/lint`,
        name: 'ci/lint',
        sha: 'c'.repeat(40),
        ref: 'main',
        state: 'failure',
        url: null,
        updatedAt: '2026-11-27T01:00:00.000Z',
      },
    ]);
    expect(observe('github', status('pending'), AT)[0]).toMatchObject({ state: 'running' });
  });

  it('reads pushes of branches only, and gives a delivery its own time when the provider’s is unreadable', () => {
    const sha = 'd'.repeat(40);
    expect(observe('github', { ref: 'refs/heads/main', after: sha, commits: [] }, AT)).toEqual([
      { kind: 'push', ref: 'main', sha },
    ]);
    expect(observe('github', { ref: 'refs/tags/v1', after: sha, commits: [] }, AT)).toEqual([]);
    const pipeline = {
      object_kind: 'pipeline',
      object_attributes: { id: 1, sha, status: 'running', created_at: 'yesterday' },
    };
    expect(observe('gitlab', pipeline, AT)[0]).toMatchObject({ state: 'running', updatedAt: AT, ref: null });
    // A GitLab payload read as GitHub's (another provider's integration) says nothing.
    expect(observe('github', pipeline, AT)).toEqual([]);
  });
});
