import { assertNever, type Decider } from '../../../kernel/es/decider.ts';
import type { TfaEvent } from '../../../contracts/auth/tfa.events.ts';
import {
  ChallengeAnswered,
  CodeReused,
  RecoveryCodeSpent,
  SetupNotStarted,
  TfaAlreadyOn,
  TfaNotOn,
  TfaOffAtChallenge,
} from './tfa.errors.ts';

export interface TfaState {
  status: 'none' | 'pending' | 'enrolled';
  seed: string | null;
  enrolledAt: string | null;
  /** Recovery code hashes; a spent code's slot is null. */
  recoveryCodes: (string | null)[];
  /** The last accepted time step (replay guard). */
  lastStep: number;
  /** Completed challenge ids with their expiry (kept until they expire). */
  challenges: Record<string, string>;
}

/** How the second factor was proven: a code of a time step, or a recovery code by its index. */
export type Proof = { kind: 'code'; step: number } | { kind: 'recovery'; index: number };
type Now = { userId: string; now: string };
export type TfaCommand =
  | { type: 'IssueSetup'; data: Now & { seed: string } }
  | { type: 'ConfirmSetup'; data: Now & { step: number; recoveryCodes: string[] } }
  | { type: 'ProveSecondFactor'; data: Now & { proof: Proof; challenge?: { jti: string; expiresAt: string } } }
  | { type: 'RegenerateRecoveryCodes'; data: Now & { step: number; recoveryCodes: string[] } }
  | { type: 'DisableTotp'; data: Now & { proof: Proof } };

/** Events of a valid proof (a code newer than the last, or an unspent recovery code), else an error. */
function prove(s: TfaState, userId: string, proof: Proof, at: string): TfaEvent[] {
  if (proof.kind === 'code') {
    if (proof.step <= s.lastStep) throw new CodeReused();
    return [{ type: 'TotpCodeAccepted', data: { userId, step: proof.step, at } }];
  }
  if (!s.recoveryCodes[proof.index]) throw new RecoveryCodeSpent();
  return [{ type: 'RecoveryCodeUsed', data: { userId, index: proof.index, at } }];
}

export const tfaDecider: Decider<TfaState, TfaCommand, TfaEvent> = {
  initialState: () => ({
    status: 'none',
    seed: null,
    enrolledAt: null,
    recoveryCodes: [],
    lastStep: 0,
    challenges: {},
  }),
  evolve: (s, e) => {
    switch (e.type) {
      case 'TotpSetupIssued':
        return { ...s, status: 'pending', seed: e.data.seed };
      case 'TotpEnrolled':
        return {
          ...s,
          status: 'enrolled',
          enrolledAt: e.data.at,
          recoveryCodes: e.data.recoveryCodes,
          lastStep: e.data.step,
        };
      case 'TotpCodeAccepted':
        return { ...s, lastStep: Math.max(s.lastStep, e.data.step) };
      case 'RecoveryCodeUsed':
        return { ...s, recoveryCodes: s.recoveryCodes.map((c, i) => (i === e.data.index ? null : c)) };
      case 'RecoveryCodesRegenerated':
        return { ...s, recoveryCodes: e.data.recoveryCodes };
      case 'TotpDisabled':
        return { ...tfaDecider.initialState(), lastStep: s.lastStep, challenges: s.challenges };
      case 'MfaChallengeCompleted': {
        // Forget challenges that have expired anyway: the state stays small.
        const live = Object.fromEntries(Object.entries(s.challenges).filter(([, exp]) => exp > e.data.at));
        return { ...s, challenges: { ...live, [e.data.jti]: e.data.expiresAt } };
      }
      default:
        return assertNever(e);
    }
  },
  decide: (cmd, s) => {
    const { userId, now: at } = cmd.data;
    switch (cmd.type) {
      case 'IssueSetup':
        if (s.status === 'enrolled') throw new TfaAlreadyOn();
        return [{ type: 'TotpSetupIssued', data: { userId, seed: cmd.data.seed, at } }];
      case 'ConfirmSetup':
        if (s.status !== 'pending') throw new SetupNotStarted();
        return [
          { type: 'TotpEnrolled', data: { userId, recoveryCodes: cmd.data.recoveryCodes, step: cmd.data.step, at } },
        ];
      case 'ProveSecondFactor': {
        if (s.status !== 'enrolled') throw new TfaOffAtChallenge();
        const c = cmd.data.challenge;
        if (c && c.jti in s.challenges) throw new ChallengeAnswered();
        const events = prove(s, userId, cmd.data.proof, at);
        if (c)
          events.push({
            type: 'MfaChallengeCompleted',
            data: {
              userId,
              jti: c.jti,
              method: cmd.data.proof.kind === 'code' ? 'totp' : 'recovery',
              expiresAt: c.expiresAt,
              at,
            },
          });
        return events;
      }
      case 'RegenerateRecoveryCodes':
        if (s.status !== 'enrolled') throw new TfaNotOn();
        return [
          ...prove(s, userId, { kind: 'code', step: cmd.data.step }, at),
          { type: 'RecoveryCodesRegenerated', data: { userId, recoveryCodes: cmd.data.recoveryCodes, at } },
        ];
      case 'DisableTotp':
        if (s.status !== 'enrolled') throw new TfaNotOn();
        return [...prove(s, userId, cmd.data.proof, at), { type: 'TotpDisabled', data: { userId, at } }];
      default:
        return assertNever(cmd);
    }
  },
};
