import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { fold } from '../../../kernel/es/decider.ts';
import { runCommands } from '../../../../test/support/decider-spec.ts';
import { tfaDecider, type Proof, type TfaCommand } from './tfa.decider.ts';

const userId = 'u1';
const now = '2026-03-01T10:00:00.000Z';
const proofArb: fc.Arbitrary<Proof> = fc.oneof(
  fc.record({ kind: fc.constant('code' as const), step: fc.integer({ min: 1, max: 20 }) }),
  fc.record({ kind: fc.constant('recovery' as const), index: fc.integer({ min: 0, max: 2 }) }),
);
const hashes = fc.constant<string[]>(['h0', 'h1', 'h2']);
const step = fc.integer({ min: 1, max: 20 });
const challenge = fc.record({ jti: fc.constantFrom('j1', 'j2'), expiresAt: fc.constant('2026-03-01T10:05:00.000Z') });
const commandArb: fc.Arbitrary<TfaCommand> = fc.oneof(
  fc.record({
    type: fc.constant('IssueSetup' as const),
    data: fc.record({ userId: fc.constant(userId), now: fc.constant(now), seed: fc.constantFrom('v0:a', 'v0:b') }),
  }),
  fc.record({
    type: fc.constant('ConfirmSetup' as const),
    data: fc.record({ userId: fc.constant(userId), now: fc.constant(now), step, recoveryCodes: hashes }),
  }),
  fc.record({
    type: fc.constant('ProveSecondFactor' as const),
    data: fc.record(
      {
        userId: fc.constant(userId),
        now: fc.constant(now),
        proof: proofArb,
        challenge: fc.option(challenge, { nil: undefined }),
      },
      { requiredKeys: ['userId', 'now', 'proof'] },
    ),
  }),
  fc.record({
    type: fc.constant('RegenerateRecoveryCodes' as const),
    data: fc.record({ userId: fc.constant(userId), now: fc.constant(now), step, recoveryCodes: hashes }),
  }),
  fc.record({
    type: fc.constant('DisableTotp' as const),
    data: fc.record({ userId: fc.constant(userId), now: fc.constant(now), proof: proofArb }),
  }),
);

describe('TOTP decider properties', () => {
  it('folding the accepted events from scratch gives the state reached step by step', () =>
    fc.assert(
      fc.property(fc.array(commandArb, { maxLength: 30 }), (cmds) => {
        const { state, events } = runCommands(tfaDecider, cmds);
        expect(fold(tfaDecider, events)).toEqual(state);
      }),
      { numRuns: 3000 },
    ));
  it('accepts time steps strictly increasing within an enrollment, and each challenge id at most once', () =>
    fc.assert(
      fc.property(fc.array(commandArb, { maxLength: 30 }), (cmds) => {
        const { events } = runCommands(tfaDecider, cmds);
        let last = -1;
        for (const e of events) {
          // A new enrollment brings a new seed: its codes have never been seen.
          if (e.type === 'TotpEnrolled') last = e.data.step;
          if (e.type !== 'TotpCodeAccepted') continue;
          expect(e.data.step).toBeGreaterThan(last);
          last = e.data.step;
        }
        const jtis = events.flatMap((e) => (e.type === 'MfaChallengeCompleted' ? [e.data.jti] : []));
        expect(new Set(jtis).size).toBe(jtis.length);
      }),
      { numRuns: 3000 },
    ));
  it('spends a recovery code at most once per issued set', () =>
    fc.assert(
      fc.property(fc.array(commandArb, { maxLength: 30 }), (cmds) => {
        const { events } = runCommands(tfaDecider, cmds);
        let spent = new Set<number>();
        for (const e of events) {
          if (e.type === 'TotpEnrolled' || e.type === 'RecoveryCodesRegenerated') spent = new Set();
          if (e.type !== 'RecoveryCodeUsed') continue;
          expect(spent.has(e.data.index)).toBe(false);
          spent.add(e.data.index);
        }
      }),
      { numRuns: 3000 },
    ));
});
