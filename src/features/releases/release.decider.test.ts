import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { deciderSpec } from '../../../test/support/decider-spec.ts';
import { releaseDecider, statusOf } from './release.decider.ts';
import type { Outcome, ReleaseEvent } from '../../contracts/releases/release.events.ts';

const given = deciderSpec(releaseDecider);
const now = '2026-06-01T08:00:00.000Z';
const releaseId = 'r1';
const meta = { name: 'R', atomicityMode: 'best_effort' as const, publishAt: null, maintenanceWindow: null };
const a = { collection: 'posts', itemId: 'a', targetStatus: 'published' };
const created: ReleaseEvent = { type: 'ReleaseCreated', data: { releaseId, ...meta, items: [a], by: 'u', at: now } };
const published: ReleaseEvent = {
  type: 'ReleasePublished',
  data: {
    releaseId,
    status: 'published',
    outcomes: [{ collection: 'posts', itemId: 'a', outcome: 'published' }],
    by: 'u',
    at: now,
  },
};

describe('Release', () => {
  it('refuses to publish an empty release', () =>
    given([{ type: 'ReleaseCreated', data: { releaseId, ...meta, items: [], by: 'u', at: now } }])
      .when({ type: 'StartPublish', data: { releaseId, by: 'u', now } })
      .thenThrows('EMPTY_RELEASE'));
  it('starts a publish with its items', () =>
    given([created])
      .when({ type: 'StartPublish', data: { releaseId, by: 'u', now } })
      .then([{ type: 'ReleasePublishStarted', data: { releaseId, items: [a], by: 'u', at: now } }]));
  it('refuses a second publish while one runs, and after it ended published', () => {
    given([created, { type: 'ReleasePublishStarted', data: { releaseId, items: [a], by: 'u', at: now } }])
      .when({ type: 'StartPublish', data: { releaseId, by: 'u', now } })
      .thenThrows('CONFLICT');
    given([created, published])
      .when({ type: 'StartPublish', data: { releaseId, by: 'u', now } })
      .thenThrows('ALREADY_PUBLISHED');
  });
  it('records each outcome once', () =>
    given([
      created,
      { type: 'ReleasePublishStarted', data: { releaseId, items: [a], by: 'u', at: now } },
      {
        type: 'ReleaseItemPublished',
        data: { releaseId, outcome: { collection: 'posts', itemId: 'a', outcome: 'published' }, at: now },
      },
    ])
      .when({
        type: 'RecordOutcome',
        data: { releaseId, outcome: { collection: 'posts', itemId: 'a', outcome: 'failed' }, now },
      })
      .then([]));
  it('keeps a published release immutable', () =>
    given([created, published])
      .when({ type: 'UpdateRelease', data: { releaseId, changes: { name: 'x' }, add: [], remove: [], now } })
      .thenThrows('RELEASE_IMMUTABLE'));
  it('is scheduled while it has a publishAt, draft without', () => {
    const s = [
      created,
      {
        type: 'ReleaseUpdated',
        data: { releaseId, changes: { publishAt: now }, added: [], removed: [], at: now },
      } as ReleaseEvent,
    ].reduce(releaseDecider.evolve, releaseDecider.initialState());
    expect(s.exists && s.status).toBe('scheduled');
  });
});

describe('release status', () => {
  it('is published when every item is, failed when none is, partially_failed otherwise', () =>
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom<Outcome['outcome']>('published', 'skipped', 'failed'), {
          minLength: 1,
          maxLength: 20,
        }),
        (kinds) => {
          const outcomes = kinds.map((outcome, i) => ({ collection: 'c', itemId: String(i), outcome }));
          const n = kinds.filter((k) => k === 'published').length;
          expect(statusOf(outcomes)).toBe(n === kinds.length ? 'published' : n === 0 ? 'failed' : 'partially_failed');
        },
      ),
    ));
});
