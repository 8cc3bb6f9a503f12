import type { DomainEvent } from '../../kernel/es/event.ts';

/** A TOTP seed was issued (sealed with the active encryption key, AAD `tfa:<userId>`); not in force until confirmed. */
export type TotpSetupIssued = DomainEvent<'TotpSetupIssued', { userId: string; seed: string; at: string }>;
/** The user proved the seed with a live code: the second factor is on; recovery codes as PBKDF2 hashes. */
export type TotpEnrolled = DomainEvent<
  'TotpEnrolled',
  { userId: string; recoveryCodes: string[]; step: number; at: string }
>;
/** A code of this time step was accepted: no code of this step or an earlier one is accepted again. */
export type TotpCodeAccepted = DomainEvent<'TotpCodeAccepted', { userId: string; step: number; at: string }>;
/** A recovery code was spent. */
export type RecoveryCodeUsed = DomainEvent<'RecoveryCodeUsed', { userId: string; index: number; at: string }>;
/** A fresh set of recovery codes replaced the old one. */
export type RecoveryCodesRegenerated = DomainEvent<
  'RecoveryCodesRegenerated',
  { userId: string; recoveryCodes: string[]; at: string }
>;
/** The second factor was turned off: the seed and recovery codes are void. */
export type TotpDisabled = DomainEvent<'TotpDisabled', { userId: string; at: string }>;
/** A login challenge was answered: its id is spent. */
export type MfaChallengeCompleted = DomainEvent<
  'MfaChallengeCompleted',
  { userId: string; jti: string; method: 'totp' | 'recovery'; expiresAt: string; at: string }
>;

export type TfaEvent =
  | TotpSetupIssued
  | TotpEnrolled
  | TotpCodeAccepted
  | RecoveryCodeUsed
  | RecoveryCodesRegenerated
  | TotpDisabled
  | MfaChallengeCompleted;

export const tfaStream = (userId: string) => `_system/tfa/${userId}`;
