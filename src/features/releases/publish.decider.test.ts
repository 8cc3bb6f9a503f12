import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { deciderSpec } from '../../../test/support/decider-spec.ts';
import { fold } from '../../kernel/es/decider.ts';
import { publishDecider, type PublishCommand, type Verdict } from './publish.decider.ts';
import { statusOf } from './release.decider.ts';
import type {
  AtomicityMode,
  Outcome,
  ReleaseEvent,
  ReleaseItem,
  ReleasePublished,
} from '../../contracts/releases/release.events.ts';

const given = deciderSpec(publishDecider);
const now = '2026-06-01T08:00:00.000Z';
const releaseId = 'r1';
const at = { releaseId, now };
const item = (itemId: string): ReleaseItem => ({ collection: 'posts', itemId, targetStatus: 'published' });
const [a, b] = [item('a'), item('b')];
const ok = (i: ReleaseItem): Verdict => ({ item: i, blocked: null });
const blocked = (i: ReleaseItem, reason: string): Verdict => ({ item: i, blocked: reason });
const outcome = (i: ReleaseItem, o: Outcome['outcome'], reason?: string): Outcome => ({
  collection: i.collection,
  itemId: i.itemId,
  outcome: o,
  ...(reason ? { reason } : {}),
});

const created = (atomicityMode: AtomicityMode, items = [a, b]): ReleaseEvent => ({
  type: 'ReleaseCreated',
  data: { releaseId, name: 'R', atomicityMode, publishAt: null, maintenanceWindow: null, items, by: 'u', at: now },
});
const started: ReleaseEvent = { type: 'ReleasePublishStarted', data: { releaseId, items: [a, b], by: 'u', at: now } };
const recorded = (o: Outcome): ReleaseEvent => ({
  type: 'ReleaseItemPublished',
  data: { releaseId, outcome: o, at: now },
});
const ended = (status: 'published' | 'partially_failed' | 'failed', outcomes: Outcome[]): ReleaseEvent => ({
  type: 'ReleasePublished',
  data: { releaseId, status, outcomes, by: 'u', at: now },
});

const publish = (verdicts: Verdict[]): PublishCommand => ({ type: 'Publish', data: { ...at, by: 'u', verdicts } });
const failAtOnce = (reason: string): PublishCommand => ({ type: 'FailAtOnce', data: { ...at, by: 'u', reason } });
const record = (verdict: Verdict): PublishCommand => ({ type: 'RecordItem', data: { ...at, verdict } });
const finish: PublishCommand = { type: 'Finish', data: { ...at, by: 'u' } };

describe('Publish process', () => {
  describe('when the release cannot be published as a whole', () => {
    it('refuses a release that does not exist, or was deleted, with NOT_FOUND', () => {
      given([])
        .when(publish([ok(a)]))
        .thenThrows('NOT_FOUND');
      given([created('best_effort'), { type: 'ReleaseDeleted', data: { releaseId, at: now } }])
        .when(publish([ok(a)]))
        .thenThrows('NOT_FOUND');
    });
    it('refuses a published release with ALREADY_PUBLISHED, whatever the step', () => {
      const done = [created('all_or_nothing'), ended('published', [outcome(a, 'published'), outcome(b, 'published')])];
      for (const step of [publish([ok(a)]), failAtOnce('CONFLICT'), record(ok(a)), finish])
        given(done).when(step).thenThrows('ALREADY_PUBLISHED');
    });
    it('refuses a release without items with EMPTY_RELEASE', () =>
      given([created('all_or_nothing', [])])
        .when(publish([]))
        .thenThrows('EMPTY_RELEASE'));
  });

  describe('all_or_nothing', () => {
    it('publishes every item at once when none is blocked', () =>
      given([created('all_or_nothing')])
        .when(publish([ok(a), ok(b)]))
        .then([ended('published', [outcome(a, 'published'), outcome(b, 'published')])]));
    it('publishes nothing when one item is blocked: that one failed with its reason, the others skipped', () =>
      given([created('all_or_nothing')])
        .when(publish([ok(a), blocked(b, 'ITEM_DELETED')]))
        .then([ended('failed', [outcome(a, 'skipped'), outcome(b, 'failed', 'ITEM_DELETED')])]));
    it('fails every item with the code of a refusal met when writing', () =>
      given([created('all_or_nothing')])
        .when(failAtOnce('EDITORIAL_GATE_REQUIRED'))
        .then([
          ended('failed', [
            outcome(a, 'failed', 'EDITORIAL_GATE_REQUIRED'),
            outcome(b, 'failed', 'EDITORIAL_GATE_REQUIRED'),
          ]),
        ]));
    it('does not fail at once a publish that runs one by one (CONFLICT)', () =>
      given([created('best_effort'), started])
        .when(failAtOnce('CONFLICT'))
        .thenThrows('CONFLICT'));
  });

  describe('best_effort', () => {
    it('starts with the release items, whatever the verdicts', () =>
      given([created('best_effort')])
        .when(publish([blocked(a, 'ITEM_DELETED'), ok(b)]))
        .then([{ type: 'ReleasePublishStarted', data: { releaseId, items: [a, b], by: 'u', at: now } }]));
    it('starts nothing when a publish cut off by a crash resumes, in either mode', () => {
      given([created('best_effort'), started])
        .when(publish([ok(a), ok(b)]))
        .then([]);
      given([created('all_or_nothing'), started])
        .when(publish([ok(a), ok(b)]))
        .then([]);
    });
    it('records an item published, or failed with the reason that blocks it', () => {
      given([created('best_effort'), started])
        .when(record(ok(a)))
        .then([recorded(outcome(a, 'published'))]);
      given([created('best_effort'), started])
        .when(record(blocked(a, 'PERMISSION_DENIED')))
        .then([recorded(outcome(a, 'failed', 'PERMISSION_DENIED'))]);
    });
    it('records nothing for an item whose outcome the log holds already', () =>
      given([created('best_effort'), started, recorded(outcome(a, 'failed', 'ITEM_DELETED'))])
        .when(record(ok(a)))
        .then([]));
    it('records no item and finishes nothing outside a running publish (CONFLICT)', () => {
      given([created('best_effort')])
        .when(record(ok(a)))
        .thenThrows('CONFLICT');
      given([created('best_effort')])
        .when(finish)
        .thenThrows('CONFLICT');
    });
    it('finishes with the outcomes the log holds, partially_failed when some failed', () =>
      given([
        created('best_effort'),
        started,
        recorded(outcome(a, 'published')),
        recorded(outcome(b, 'failed', 'EDITORIAL_GATE_REQUIRED')),
      ])
        .when(finish)
        .then([ended('partially_failed', [outcome(a, 'published'), outcome(b, 'failed', 'EDITORIAL_GATE_REQUIRED')])]));
  });
});

const verdictsArb = fc.uniqueArray(fc.constantFrom('a', 'b', 'c', 'd', 'e'), { minLength: 1 }).chain((ids) =>
  fc.tuple(
    ...ids.map((id) =>
      fc.record({
        item: fc.constant(item(id)),
        blocked: fc.constantFrom(null, null, 'ITEM_DELETED', 'PERMISSION_DENIED', 'EDITORIAL_GATE_REQUIRED'),
      }),
    ),
  ),
);

/** Decides each step in turn on the state the given events and the earlier steps left; returns every event. */
function run(history: ReleaseEvent[], steps: PublishCommand[]): ReleaseEvent[] {
  let state = fold(publishDecider, history);
  const events: ReleaseEvent[] = [];
  for (const step of steps) {
    const out = publishDecider.decide(step, state);
    state = fold(publishDecider, out, state);
    events.push(...out);
  }
  return events;
}
/** The one end of a publish among its events. */
const endOf = (events: ReleaseEvent[]) => {
  const ends = events.filter((e): e is ReleasePublished => e.type === 'ReleasePublished');
  expect(ends).toHaveLength(1);
  return ends[0]!.data;
};

describe('Publish process properties', () => {
  it('all_or_nothing publishes every item or none, and fails exactly the blocked ones with their reasons', () =>
    fc.assert(
      fc.property(verdictsArb, (verdicts) => {
        const items = verdicts.map((v) => v.item);
        const end = endOf(run([created('all_or_nothing', items)], [publish(verdicts)]));
        const published = end.outcomes.filter((o) => o.outcome === 'published').length;
        expect([0, verdicts.length]).toContain(published);
        expect(end.status).toBe(verdicts.some((v) => v.blocked) ? 'failed' : 'published');
        expect(end.outcomes.filter((o) => o.outcome === 'failed').map((o) => o.reason)).toEqual(
          verdicts.filter((v) => v.blocked).map((v) => v.blocked),
        );
      }),
    ));

  it('best_effort ends once with one outcome per item, however often each item is recorded', () =>
    fc.assert(
      fc.property(verdictsArb, fc.integer({ min: 1, max: 3 }), (verdicts, times) => {
        const items = verdicts.map((v) => v.item);
        const records = Array.from({ length: times }, () => verdicts.map(record)).flat();
        const end = endOf(run([created('best_effort', items)], [publish(verdicts), ...records, finish]));
        expect(end.outcomes.map((o) => o.itemId)).toEqual(items.map((i) => i.itemId));
        expect(end.outcomes.map((o) => o.reason ?? null)).toEqual(verdicts.map((v) => v.blocked));
        expect(end.status).toBe(statusOf(end.outcomes));
      }),
    ));
});
