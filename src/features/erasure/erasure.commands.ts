import type { AppDeps } from '../../deps.ts';
import { roleOn, type Actor } from '../../kernel/auth/actor.ts';
import { handleCommand, readState } from '../../kernel/es/handle-command.ts';
import type { CommandContext } from '../../kernel/http/command-meta.ts';
import { newId } from '../../kernel/ids.ts';
import { scrubOutbox } from '../../kernel/mail/outbox.ts';
import { shred, subjectKeyFingerprint } from '../../kernel/privacy/pii.ts';
import { readAsSite, SYSTEM_SITE } from '../../kernel/tenancy/site.ts';
import { findUserByEmail, findUserById, type UserRow } from '../../../projections/users/index.ts';
import { liveSessions } from '../../../projections/sessions/index.ts';
import { listApiKeys, revokeApiKey } from '../api-keys/index.ts';
import { revokeAllSessions, userDecider, userStream } from '../auth/index.ts';
import { shredSuppressedAddress } from '../email/index.ts';
import { erasureStream, type ErasureCompleted, type ErasureEvent } from './erasure.events.ts';
import { ErasureNotFound, SubjectElsewhere, SubjectNotFound } from './erasure.errors.ts';

type Deps = AppDeps;

/** The same context, acting on another site (the person's account lives under `_system`, their keys per site). */
const on = (ctx: CommandContext, siteId: string): CommandContext => ({
  ...ctx,
  siteId,
  metadata: { ...ctx.metadata, siteId },
});

async function subjectOf(deps: Deps, ctx: CommandContext, input: { userId?: string; email?: string }) {
  const user: UserRow | null = input.userId
    ? await findUserById(deps.db, input.userId)
    : await findUserByEmail(deps.db, input.email ?? '');
  if (!user) throw new SubjectNotFound();
  return user;
}

/**
 * Erasure by crypto-shredding (DESIGN §3): the person's sessions and the API keys they made are revoked, mail to
 * their address is scrubbed, their key is destroyed (every value sealed for them in the log is unreadable for good,
 * so a rebuild cannot bring it back), `UserErased` scrubs what read models had opened from it, and the proof is
 * recorded. What they authored stays, attributed to their (now anonymous) id. Interrupted, it is run again: each
 * step finds its work done or does it.
 */
export async function eraseSubject(
  deps: Deps,
  ctx: CommandContext,
  caller: Actor,
  input: { userId?: string; email?: string; reason: string },
): Promise<ErasureCompleted['data'] & { reason: string; by: string }> {
  const user = await subjectOf(deps, ctx, input);
  const state = (await readState(deps.store, userDecider, userStream(user.userId))).state;
  if (state.exists && state.erased) {
    // The first erasure stands; the decider answers 409.
  } else {
    if (!Object.hasOwn(user.roles, ctx.siteId) && !user.instanceAdmin) throw new SubjectNotFound();
    if (Object.keys(user.roles).some((siteId) => roleOn(caller, siteId) !== 'admin')) throw new SubjectElsewhere();
  }
  const erasureId = newId();
  const at = () => deps.clock.now().toISOString();
  const by = ctx.actor.id;
  const started = { erasureId, subjectId: user.userId, reason: input.reason, by, at: ctx.now.toISOString() };
  await handleCommand(
    deps.store,
    { initialState: () => null, evolve: (s) => s, decide: () => [{ type: 'ErasureStarted', data: started }] },
    erasureStream(ctx.siteId, erasureId),
    null,
    { metadata: ctx.metadata, fresh: true },
  );
  const system = on(ctx, SYSTEM_SITE);
  const sessions = (await liveSessions(deps.db, user.userId, ctx.now)).length;
  await revokeAllSessions(deps, system, { userId: user.userId, reason: 'admin', by });
  let apiKeys = 0;
  for (const siteId of Object.keys(user.roles)) {
    const keys = await readAsSite(deps.db, siteId, (db) => listApiKeys(db, siteId, false));
    for (const k of keys.filter((x) => x.createdBy === user.userId && !x.revokedAt)) {
      await revokeApiKey(deps, on(ctx, siteId), { keyId: k.id });
      apiKeys++;
    }
  }
  const mailOutbox = user.email ? await scrubOutbox(deps.db, user.email) : 0;
  // A suppression of their address stays (as its keyed hash, so no mail reaches them), no longer readable.
  const shreddedSuppressions: string[] = [];
  if (user.email)
    for (const siteId of Object.keys(user.roles)) {
      await shredSuppressedAddress(deps, siteId, user.email);
      shreddedSuppressions.push(`suppression:${siteId}`);
    }
  const keyFingerprint = await subjectKeyFingerprint(deps.db, deps.config.keyring, user.userId);
  await shred(deps.db, user.userId);
  await handleCommand(
    deps.store,
    userDecider,
    userStream(user.userId),
    {
      type: 'EraseUser',
      data: { userId: user.userId, erasureId, keyFingerprint, reason: input.reason, by, now: at() },
    },
    { metadata: system.metadata },
  );
  const proof: ErasureCompleted['data'] = {
    erasureId,
    subjectId: user.userId,
    keyFingerprint,
    revoked: { sessions, apiKeys },
    // `UserErased` scrubs these in the append's transaction (users, memberships, sessions' address and browser).
    scrubbed: { readModels: ['users', 'user_sites', 'sessions'], mailOutbox },
    shredded: [`subject:${user.userId}`, ...shreddedSuppressions],
    at: at(),
  };
  await deps.store.append(
    erasureStream(ctx.siteId, erasureId),
    [{ type: 'ErasureCompleted', data: proof, metadata: ctx.metadata }],
    {
      expectedVersion: 1,
    },
  );
  return { ...proof, reason: input.reason, by };
}

export interface ErasureRecord {
  erasureId: string;
  subjectId: string;
  reason: string;
  by: string;
  startedAt: string;
  completed: boolean;
  completedAt: string | null;
  keyFingerprint: string | null;
  revoked: { sessions: number; apiKeys: number } | null;
  scrubbed: { readModels: string[]; mailOutbox: number } | null;
  shredded: string[];
}

/** The proof of an erasure of this site, from its stream. */
export async function erasureProof(
  deps: Pick<Deps, 'store'>,
  siteId: string,
  erasureId: string,
): Promise<ErasureRecord> {
  let record = null as ErasureRecord | null;
  for await (const stored of deps.store.readStream<ErasureEvent>(erasureStream(siteId, erasureId))) {
    const e = { type: stored.type, data: stored.data } as ErasureEvent;
    if (e.type === 'ErasureStarted')
      record = {
        erasureId,
        subjectId: e.data.subjectId,
        reason: e.data.reason,
        by: e.data.by,
        startedAt: e.data.at,
        completed: false,
        completedAt: null,
        keyFingerprint: null,
        revoked: null,
        scrubbed: null,
        shredded: [],
      };
    else if (record)
      record = {
        ...record,
        completed: true,
        completedAt: e.data.at,
        keyFingerprint: e.data.keyFingerprint,
        revoked: e.data.revoked,
        scrubbed: e.data.scrubbed,
        shredded: e.data.shredded,
      };
  }
  if (!record) throw new ErasureNotFound({ id: erasureId });
  return record;
}
