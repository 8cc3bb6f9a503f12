import type { AppDeps } from '../../../deps.ts';
import { sealValue } from '../../../platform/crypto/envelope.ts';
import { handleCommand } from '../../../kernel/es/handle-command.ts';
import type { CommandContext } from '../../../kernel/http/command-meta.ts';
import { findUserById, type UserRow } from '../../../../projections/users/index.ts';
import { asUser } from '../acting-user.ts';
import { openSession, revokeAllSessions, type LoginData, type SessionClient } from '../session.commands.ts';
import { revokeTokens } from '../user.commands.ts';
import { tfaDecider, type TfaCommand } from './tfa.decider.ts';
import { CodeMismatch, InvalidChallenge, LiveCodeRequired, SetupNotStarted, TfaNotOn } from './tfa.errors.ts';
import { tfaStream } from '../../../contracts/auth/tfa.events.ts';
import { openSeed, proofFrom, seedAad, tfaState } from './tfa.service.ts';
import { codeStep, hashRecoveryCode, newRecoveryCodes, newSeed, otpauthUrl } from './totp.ts';

type Proofs = { code?: string; recoveryCode?: string };

// Only the user changes their own second factor, whoever else a request names.
const sendTfa = (deps: Pick<AppDeps, 'store'>, ctx: CommandContext, command: TfaCommand) =>
  handleCommand(deps.store, tfaDecider, tfaStream(command.data.userId), command, {
    metadata: asUser(ctx, command.data.userId).metadata,
  });

const recoveryCodes = () => {
  const codes = newRecoveryCodes();
  return { codes, hashes: codes.map(hashRecoveryCode) };
};

/** Starts TOTP enrollment with a new seed, sealed under the active key; answers the secret, shown only now. */
export async function beginTfaSetup(deps: AppDeps, ctx: CommandContext, input: { user: UserRow }) {
  const { userId } = input.user;
  const secret = newSeed();
  const seed = sealValue(deps.config.keyring, secret, seedAad(userId));
  await sendTfa(deps, ctx, { type: 'IssueSetup', data: { userId, seed, now: ctx.now.toISOString() } });
  return { secret, otpauthUrl: otpauthUrl(secret, input.user.email ?? userId) };
}

/** Completes the enrollment with a live code of the new seed; answers the recovery codes, shown only now. */
export async function confirmTfa(deps: AppDeps, ctx: CommandContext, input: { userId: string; code: string }) {
  const { userId } = input;
  const s = await tfaState(deps, userId);
  if (s.status !== 'pending') throw new SetupNotStarted();
  const step = codeStep(openSeed(deps, s, userId), input.code, ctx.now.getTime());
  if (step === null) throw new CodeMismatch();
  const { codes, hashes } = recoveryCodes();
  await sendTfa(deps, ctx, {
    type: 'ConfirmSetup',
    data: { userId, step, recoveryCodes: hashes, now: ctx.now.toISOString() },
  });
  return codes;
}

/** Replaces the recovery codes, proven by a live code; answers the new ones. */
export async function regenerateRecoveryCodes(
  deps: AppDeps,
  ctx: CommandContext,
  input: { userId: string; code: string },
) {
  const { userId } = input;
  const s = await tfaState(deps, userId);
  if (s.status !== 'enrolled') throw new TfaNotOn();
  const proof = proofFrom(deps, s, userId, { code: input.code }, ctx.now);
  if (proof.kind !== 'code') throw new LiveCodeRequired();
  const { codes, hashes } = recoveryCodes();
  await sendTfa(deps, ctx, {
    type: 'RegenerateRecoveryCodes',
    data: { userId, step: proof.step, recoveryCodes: hashes, now: ctx.now.toISOString() },
  });
  return codes;
}

/** Turns TOTP off, proven by a code or a recovery code; every token issued before is void and every session ends. */
export async function disableTfa(deps: AppDeps, ctx: CommandContext, input: Proofs & { userId: string }) {
  const { userId } = input;
  const s = await tfaState(deps, userId);
  if (s.status !== 'enrolled') throw new TfaNotOn();
  const proof = proofFrom(deps, s, userId, input, ctx.now);
  await sendTfa(deps, ctx, { type: 'DisableTotp', data: { userId, proof, now: ctx.now.toISOString() } });
  await revokeTokens(deps, ctx, { userId, reason: 'tfa' });
  await revokeAllSessions(deps, ctx, { userId, reason: 'tfa', by: userId });
}

/**
 * Answers a login's second-factor challenge (its verified claims, or null for a bad token) with a code or a
 * recovery code; each challenge works once. Answers the session the login then opens.
 */
export async function answerChallenge(
  deps: AppDeps,
  ctx: CommandContext,
  input: Proofs & { claims: { sub: string; jti: string; exp?: number } | null; client: SessionClient },
): Promise<LoginData> {
  const { claims } = input;
  const user = claims ? await findUserById(deps.db, claims.sub) : null;
  if (!claims || !user || user.status !== 'active') throw new InvalidChallenge();
  const proof = proofFrom(deps, await tfaState(deps, user.userId), user.userId, input, ctx.now);
  const challenge = { jti: claims.jti, expiresAt: new Date(Number(claims.exp ?? 0) * 1000).toISOString() };
  await sendTfa(deps, ctx, {
    type: 'ProveSecondFactor',
    data: { userId: user.userId, proof, challenge, now: ctx.now.toISOString() },
  });
  return openSession(deps, ctx, { user, amr: ['pwd', 'totp'], client: input.client });
}
