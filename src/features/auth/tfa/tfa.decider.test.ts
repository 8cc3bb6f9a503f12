import { describe, it } from 'vitest';
import { deciderSpec } from '../../../../test/support/decider-spec.ts';
import { tfaDecider } from './tfa.decider.ts';
import type { TfaEvent } from '../../../contracts/auth/tfa.events.ts';

const given = deciderSpec(tfaDecider);
const now = '2026-03-01T10:00:00.000Z';
const later = '2026-03-01T10:10:00.000Z';
const userId = 'u1';
const issued: TfaEvent = { type: 'TotpSetupIssued', data: { userId, seed: 'v0:seed', at: now } };
const enrolled: TfaEvent = { type: 'TotpEnrolled', data: { userId, recoveryCodes: ['h0', 'h1'], step: 100, at: now } };
const challenge = { jti: 'j1', expiresAt: '2026-03-01T10:05:00.000Z' };

describe('TOTP enrollment', () => {
  it('issues a seed, and again before confirmation', () =>
    given([issued])
      .when({ type: 'IssueSetup', data: { userId, seed: 'v0:other', now } })
      .then([{ type: 'TotpSetupIssued', data: { userId, seed: 'v0:other', at: now } }]));
  it('refuses a new seed while enrolled', () =>
    given([issued, enrolled])
      .when({ type: 'IssueSetup', data: { userId, seed: 'x', now } })
      .thenThrows('CONFLICT'));
  it('refuses a confirmation without a setup', () =>
    given([])
      .when({ type: 'ConfirmSetup', data: { userId, step: 1, recoveryCodes: [], now } })
      .thenThrows('CONFLICT'));
  it('enrolls on confirmation', () =>
    given([issued])
      .when({ type: 'ConfirmSetup', data: { userId, step: 100, recoveryCodes: ['h0', 'h1'], now } })
      .then([enrolled]));
});

describe('proving the second factor', () => {
  it('accepts a newer step and spends the challenge', () =>
    given([issued, enrolled])
      .when({ type: 'ProveSecondFactor', data: { userId, proof: { kind: 'code', step: 101 }, challenge, now } })
      .then([
        { type: 'TotpCodeAccepted', data: { userId, step: 101, at: now } },
        {
          type: 'MfaChallengeCompleted',
          data: { userId, jti: 'j1', method: 'totp', expiresAt: challenge.expiresAt, at: now },
        },
      ]));
  it('refuses a step already used (replay)', () =>
    given([issued, enrolled])
      .when({ type: 'ProveSecondFactor', data: { userId, proof: { kind: 'code', step: 100 }, now } })
      .thenThrows('UNAUTHENTICATED'));
  it('refuses a spent challenge', () =>
    given([
      issued,
      enrolled,
      {
        type: 'MfaChallengeCompleted',
        data: { userId, jti: 'j1', method: 'totp', expiresAt: challenge.expiresAt, at: now },
      },
    ])
      .when({ type: 'ProveSecondFactor', data: { userId, proof: { kind: 'code', step: 105 }, challenge, now } })
      .thenThrows('UNAUTHENTICATED'));
  it('spends a recovery code once', () =>
    given([issued, enrolled, { type: 'RecoveryCodeUsed', data: { userId, index: 0, at: now } }])
      .when({ type: 'ProveSecondFactor', data: { userId, proof: { kind: 'recovery', index: 0 }, now: later } })
      .thenThrows('UNAUTHENTICATED'));
  it('refuses any proof when not enrolled', () =>
    given([issued])
      .when({ type: 'ProveSecondFactor', data: { userId, proof: { kind: 'code', step: 200 }, now } })
      .thenThrows('UNAUTHENTICATED'));
});

describe('regeneration and removal', () => {
  it('regenerates recovery codes with a fresh code', () =>
    given([issued, enrolled])
      .when({ type: 'RegenerateRecoveryCodes', data: { userId, step: 102, recoveryCodes: ['n0'], now } })
      .then([
        { type: 'TotpCodeAccepted', data: { userId, step: 102, at: now } },
        { type: 'RecoveryCodesRegenerated', data: { userId, recoveryCodes: ['n0'], at: now } },
      ]));
  it('disables with a recovery code', () =>
    given([issued, enrolled])
      .when({ type: 'DisableTotp', data: { userId, proof: { kind: 'recovery', index: 1 }, now } })
      .then([
        { type: 'RecoveryCodeUsed', data: { userId, index: 1, at: now } },
        { type: 'TotpDisabled', data: { userId, at: now } },
      ]));
  it('refuses to disable what is off', () =>
    given([])
      .when({ type: 'DisableTotp', data: { userId, proof: { kind: 'code', step: 1 }, now } })
      .thenThrows('CONFLICT'));
});
