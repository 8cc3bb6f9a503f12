import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { fold } from '../../kernel/es/decider.ts';
import { deciderSpec, runCommands } from '../../../test/support/decider-spec.ts';
import { consentDecider, restrictionDecider, type SetConsent, type SetRestriction } from './consent.decider.ts';
import type { ConsentEvent, RestrictionEvent } from '../../contracts/consents/consent.events.ts';

const given = deciderSpec(consentDecider);
const t1 = '2026-03-01T10:00:00.000Z';
const t2 = '2026-03-02T10:00:00.000Z';
type Choice = Partial<Omit<SetConsent['data'], 'userId' | 'consentType'>>;
const set = (over: Choice = {}): SetConsent => ({
  type: 'SetConsent',
  data: { userId: 'u1', consentType: 'marketing', granted: true, source: 'banner', version: 'v1', now: t1, ...over },
});
const base = { userId: 'u1', consentType: 'marketing' as const, source: 'banner', version: 'v1', at: t1 };
const granted = (over: Partial<typeof base> = {}): ConsentEvent => ({
  type: 'consent_granted',
  data: { ...base, ...over },
});
const withdrawn = (over: Partial<typeof base> = {}): ConsentEvent => ({
  type: 'consent_withdrawn',
  data: { ...base, ...over },
});

describe('Consent', () => {
  describe('before any choice', () => {
    it('records a grant', () => given([]).when(set()).then([granted()]));
    it('records a first refusal as a withdrawal', () =>
      given([])
        .when(set({ granted: false }))
        .then([withdrawn()]));
  });

  describe('when granted', () => {
    it('grants again without a new event for the same text and source', () =>
      given([granted()])
        .when(set({ now: t2 }))
        .then([]));
    it('records a new grant for a new text version', () =>
      given([granted()])
        .when(set({ version: 'v2', now: t2 }))
        .then([granted({ version: 'v2', at: t2 })]));
    it('records a new grant from another source', () =>
      given([granted()])
        .when(set({ source: 'settings', now: t2 }))
        .then([granted({ source: 'settings', at: t2 })]));
    it('records a withdrawal', () =>
      given([granted()])
        .when(set({ granted: false, now: t2 }))
        .then([withdrawn({ at: t2 })]));
  });

  describe('when withdrawn', () => {
    it('withdraws again without a new event, whatever the version or source', () =>
      given([granted(), withdrawn({ at: t2 })])
        .when(set({ granted: false, version: 'v2', source: 'settings', now: t2 }))
        .then([]));
    it('records a new grant', () =>
      given([granted(), withdrawn({ at: t2 })])
        .when(set({ now: t2 }))
        .then([granted({ at: t2 })]));
  });

  describe('evolve', () => {
    it('keeps when the consent was granted after it is withdrawn', () =>
      expect(fold(consentDecider, [granted(), withdrawn({ at: t2, version: 'v2' })])).toEqual({
        consentType: 'marketing',
        granted: false,
        grantedAt: t1,
        withdrawnAt: t2,
        source: 'banner',
        version: 'v2',
        updatedAt: t2,
      }));
    it('clears the withdrawal on a new grant', () =>
      expect(fold(consentDecider, [withdrawn(), granted({ at: t2 })])).toEqual({
        consentType: 'marketing',
        granted: true,
        grantedAt: t2,
        withdrawnAt: null,
        source: 'banner',
        version: 'v1',
        updatedAt: t2,
      }));
    it('has no grant time after a first refusal', () =>
      expect(fold(consentDecider, [withdrawn()])).toMatchObject({ granted: false, grantedAt: null, withdrawnAt: t1 }));
  });

  const commandArb: fc.Arbitrary<SetConsent> = fc
    .record({
      granted: fc.boolean(),
      source: fc.constantFrom('banner', 'settings'),
      version: fc.constantFrom('v1', 'v2'),
      now: fc.constantFrom(t1, t2),
    })
    .map(set);

  it('folding the accepted events gives the state reached step by step', () =>
    fc.assert(
      fc.property(fc.array(commandArb, { maxLength: 20 }), (commands) => {
        const { state, events } = runCommands(consentDecider, commands);
        expect(fold(consentDecider, events)).toEqual(state);
      }),
    ));

  it('ends as the last choice said, never recording one that changes nothing', () =>
    fc.assert(
      fc.property(fc.array(commandArb, { minLength: 1, maxLength: 20 }), (commands) => {
        const { state, events } = runCommands(consentDecider, commands);
        expect(state?.granted).toBe(commands.at(-1)!.data.granted);
        for (let i = 1; i < events.length; i++) {
          const [a, b] = [events[i - 1]!, events[i]!];
          if (b.type === 'consent_withdrawn') expect(a.type).toBe('consent_granted');
          else if (a.type === 'consent_granted')
            expect([a.data.version, a.data.source]).not.toEqual([b.data.version, b.data.source]);
        }
      }),
    ));
});

describe('Restriction of processing', () => {
  const givenRestriction = deciderSpec(restrictionDecider);
  const restrict = (restricted: boolean, reason: string | null = null): SetRestriction => ({
    type: 'SetRestriction',
    data: { userId: 'u1', restricted, reason, now: t2 },
  });
  const restricted = (reason: string | null): RestrictionEvent => ({
    type: 'ProcessingRestricted',
    data: { userId: 'u1', reason, at: t2 },
  });
  const lifted: RestrictionEvent = { type: 'ProcessingRestrictionLifted', data: { userId: 'u1', at: t2 } };

  it('restricts processing with a reason', () =>
    givenRestriction([])
      .when(restrict(true, 'contested accuracy'))
      .then([restricted('contested accuracy')]));
  it('restricts again without a new event for the same reason', () =>
    givenRestriction([restricted('contested accuracy')])
      .when(restrict(true, 'contested accuracy'))
      .then([]));
  it('records a changed reason', () =>
    givenRestriction([restricted('contested accuracy')])
      .when(restrict(true, null))
      .then([restricted(null)]));
  it('lifts a restriction', () =>
    givenRestriction([restricted(null)])
      .when(restrict(false))
      .then([lifted]));
  it('lifts without a new event when nothing is restricted', () =>
    givenRestriction([restricted(null), lifted])
      .when(restrict(false))
      .then([]));
  it('evolve forgets the reason once lifted', () =>
    expect(fold(restrictionDecider, [restricted('objection'), lifted])).toEqual({
      restricted: false,
      reason: null,
      updatedAt: t2,
    }));
});
