import type { AppDeps } from '../../../deps.ts';
import { aggregateStream } from '../../../kernel/es/aggregate-stream.ts';
import { openValue } from '../../../platform/crypto/envelope.ts';
import { tfaDecider, type Proof, type TfaState } from './tfa.decider.ts';
import { tfaStream, type TfaEvent } from '../../../contracts/auth/tfa.events.ts';
import { codeStep, findRecoveryCode } from './totp.ts';
import {
  InvalidCode,
  InvalidRecoveryCode,
  OneProofRequired,
  TfaKeyUnavailable,
  TfaOffAtChallenge,
} from './tfa.errors.ts';

export const seedAad = (userId: string) => `tfa:${userId}`;

export async function tfaState(deps: Pick<AppDeps, 'store'>, userId: string): Promise<TfaState> {
  const { state } = await aggregateStream<TfaState, TfaEvent>(deps.store, tfaStream(userId), tfaDecider.evolve, () =>
    tfaDecider.initialState(),
  );
  return state;
}

/** The seed in clear, or 409 TFA_KEY_UNAVAILABLE when the key that sealed it is not configured (fail closed). */
export function openSeed(deps: Pick<AppDeps, 'config'>, s: TfaState, userId: string): string {
  const seed = s.seed ? openValue(deps.config.keyring, s.seed, seedAad(userId)) : null;
  if (!seed) throw new TfaKeyUnavailable();
  return seed;
}

/**
 * What the caller proves: a recovery code (checked against the unspent hashes) or a live code (the seed is
 * opened for it). Exactly one of the two; wrong ones are 401.
 */
export function proofFrom(
  deps: Pick<AppDeps, 'config'>,
  s: TfaState,
  userId: string,
  given: { code?: string; recoveryCode?: string },
  now: Date,
): Proof {
  // A challenge can outlive the enrollment (removed meanwhile): that is a failed login, not a missing key.
  if (s.status !== 'enrolled') throw new TfaOffAtChallenge();
  if ((given.code === undefined) === (given.recoveryCode === undefined)) throw new OneProofRequired();
  if (given.recoveryCode !== undefined) {
    const index = findRecoveryCode(s.recoveryCodes, given.recoveryCode);
    if (index < 0) throw new InvalidRecoveryCode();
    return { kind: 'recovery', index };
  }
  const step = codeStep(openSeed(deps, s, userId), given.code!, now.getTime());
  if (step === null) throw new InvalidCode();
  return { kind: 'code', step };
}
