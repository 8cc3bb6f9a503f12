import type { AppDeps } from '../../deps.ts';
import type { Actor } from '../../kernel/auth/actor.ts';
import { handleCommand, readState } from '../../kernel/es/handle-command.ts';
import type { CommandContext } from '../../kernel/http/command-meta.ts';
import { scrubOutbox } from '../../platform/mail/outbox.ts';
import type { EventMetadata } from '../../kernel/es/event.ts';
import { shredForGood, subjectKeyFingerprint } from '../../platform/privacy/pii.ts';
import { readAsSite, SYSTEM_SITE } from '../../kernel/tenancy/site.ts';
import { countInstanceAdmins, findUserByEmail, findUserById, type UserRow } from '../../../projections/users/index.ts';
import { liveSessions } from '../../../projections/sessions/index.ts';
import { incompleteErasures } from '../../../projections/erasures/index.ts';
import { listApiKeys, revokeApiKey } from '../api-keys/index.ts';
import { revokeAllSessions, userDecider } from '../auth/index.ts';
import { shredSuppressedAddress } from '../email/index.ts';
import { shredRunsConcerning } from '../flows/index.ts';
import { deleteSubjectAccessExportsOf } from '../privacy/index.ts';
import { userStream, type UserErased, type UserEvent } from '../../contracts/auth/user.events.ts';
import { completeItemErasure, isItemSubject } from './erasure-items.commands.ts';
import { recordProof, startErasure } from './erasure.record.ts';
import { claimInstanceAdminErasure } from './instance-admin-claim.ts';
import { erasureStream, type ErasureCompleted, type ErasureEvent } from '../../contracts/erasure/erasure.events.ts';
import {
  AlreadyErased,
  ErasureNotFound,
  InstanceAdminErasure,
  LastInstanceAdmin,
  SubjectElsewhere,
  SubjectNotFound,
} from './erasure.errors.ts';

type Deps = AppDeps;

/** The same context, acting on another site (the person's account lives under `_system`, their keys per site). */
const on = (ctx: CommandContext, siteId: string): CommandContext => ({
  ...ctx,
  siteId,
  metadata: { ...ctx.metadata, siteId },
});

async function subjectOf(deps: Deps, input: { userId?: string; email?: string }) {
  const user: UserRow | null = input.userId
    ? await findUserById(deps.db, input.userId)
    : await findUserByEmail(deps.db, input.email ?? '');
  if (!user) throw new SubjectNotFound();
  return user;
}

/** What an erasure request did: the erasure (new, or an earlier one cut short and completed now) and its site. */
export interface ErasureOutcome {
  erasureId: string;
  siteId: string;
  /** True when an earlier erasure of the person was left without its proof and this request completed it. */
  resumed: boolean;
}

/**
 * May `caller` erase this person from `siteId`? Asked of the authorizer, for each site that matters:
 * - an instance administrator is erased only by another instance administrator, and the last one by no one (an
 *   instance nobody administers could not be repaired through the API);
 * - anyone else is erased by an admin of every site they belong to, from one of those sites; a person of no site
 *   only by an instance administrator (no site's admin answers for them).
 * Once erased a person belongs to none (and keeps no address), and an admin of the site that asked may complete
 * what was cut short.
 */
async function mayErase(deps: Deps, caller: Actor, user: UserRow, siteId: string): Promise<void> {
  const { authorizer } = deps;
  const as = (site: string) => ({ actor: caller, site: { id: site } });
  const sites = Object.keys(user.roles);
  if (sites.length === 0 && !user.instanceAdmin && !user.email) {
    if (!authorizer.isAdministrator(as(siteId))) throw new SubjectNotFound();
    return;
  }
  if (user.instanceAdmin) {
    if (!authorizer.isInstanceAdministrator(as(siteId))) throw new InstanceAdminErasure();
    if ((await countInstanceAdmins(deps.db, user.userId)) === 0) throw new LastInstanceAdmin();
    return;
  }
  if (sites.length === 0) {
    if (!authorizer.isInstanceAdministrator(as(siteId))) throw new SubjectNotFound();
    return;
  }
  if (!Object.hasOwn(user.roles, siteId)) throw new SubjectNotFound();
  if (sites.some((s) => !authorizer.isAdministrator(as(s)))) throw new SubjectElsewhere();
}

/**
 * Erasure by crypto-shredding (DESIGN §3): the person's sessions and the API keys they made are revoked, mail to
 * their address is scrubbed, the files of their subject-access exports are deleted, their key is destroyed for good
 * (every value sealed for them in the log is unreadable, a rebuild cannot bring it back, and no write that raced
 * the erasure can seal anything under a new key), `UserErased` scrubs what read models had opened from it, and the
 * proof is recorded. What they authored stays, attributed to their (now anonymous) id. An erasure of the person
 * that was cut short (an `ErasureStarted` without its proof) is completed, not started again: each step finds its
 * work done or does it.
 */
export async function eraseSubject(
  deps: Deps,
  ctx: CommandContext,
  caller: Actor,
  input: { userId?: string; email?: string; reason: string },
): Promise<ErasureOutcome> {
  const user = await subjectOf(deps, input);
  const open = (await incompleteErasures(deps.db, { subjectId: user.userId }))[0];
  if (open) {
    await mayErase(deps, caller, user, open.siteId);
    await completeErasure(deps, open, ctx.metadata);
    return { erasureId: open.erasureId, siteId: open.siteId, resumed: true };
  }
  const state = (await readState(deps.store, userDecider, userStream(user.userId))).state;
  if (state.exists && state.erased) throw new AlreadyErased();
  await mayErase(deps, caller, user, ctx.siteId);
  // Two instance administrators erased at once (each by the other) must not both pass the count above.
  if (user.instanceAdmin) await claimInstanceAdminErasure(deps, ctx, user.userId);
  const erasureId = await startErasure(deps.store, ctx, { subjectId: user.userId, reason: input.reason });
  await runErasure(deps, { siteId: ctx.siteId, erasureId, userId: user.userId }, ctx.metadata);
  return { erasureId, siteId: ctx.siteId, resumed: false };
}

/** Completes an erasure left without its proof (asked again, or found by the resuming loop). */
export async function completeErasure(
  deps: Deps,
  open: { siteId: string; erasureId: string; subjectId: string },
  metadata: EventMetadata,
): Promise<void> {
  await runErasure(deps, { siteId: open.siteId, erasureId: open.erasureId, userId: open.subjectId }, metadata);
}

/** The steps of an erasure, each finding its work done or doing it, then the proof on the erasure's stream. */
async function runErasure(
  deps: Deps,
  e: { siteId: string; erasureId: string; userId: string },
  metadata: EventMetadata,
): Promise<void> {
  const started = await erasureProof(deps, e.siteId, e.erasureId);
  if (started.completed) return;
  const { reason, by } = started;
  const user = await findUserById(deps.db, e.userId);
  if (!user) throw new SubjectNotFound();
  const now = () => deps.clock.now();
  const base: CommandContext = { siteId: e.siteId, actor: metadata.actor, now: now(), metadata };
  const system = on(base, SYSTEM_SITE);
  const sessions = (await liveSessions(deps.db, user.userId, base.now)).length;
  await revokeAllSessions(deps, system, { userId: user.userId, reason: 'admin', by });
  let apiKeys = 0;
  for (const siteId of Object.keys(user.roles)) {
    const keys = await readAsSite(deps.db, siteId, (db) => listApiKeys(db, siteId, false));
    for (const k of keys.filter((x) => x.createdBy === user.userId && !x.revokedAt)) {
      await revokeApiKey(deps, on(base, siteId), { keyId: k.id });
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
  // Their subject-access exports hold their data in clear, outside the log's shredding.
  const sarExports = await deleteSubjectAccessExportsOf(deps, user.userId, Object.keys(user.roles));
  let keyFingerprint = await subjectKeyFingerprint(deps.db, deps.config.keyring, user.userId);
  await shredForGood(deps.db, user.userId);
  // Flow runs that concern them hold their values under keys of their own: those go too.
  await shredRunsConcerning(deps, [user.userId]);
  try {
    await handleCommand(
      deps.store,
      userDecider,
      userStream(user.userId),
      {
        type: 'EraseUser',
        data: { userId: user.userId, erasureId: e.erasureId, keyFingerprint, reason, by, now: now().toISOString() },
      },
      { metadata: system.metadata },
    );
  } catch (err) {
    // Cut short after `UserErased`: the person is erased already, by this erasure; its record names the key.
    const erased = await erasedBy(deps, user.userId);
    if (erased?.erasureId !== e.erasureId) throw err;
    keyFingerprint = erased.keyFingerprint;
  }
  // A login that raced the erasure may have opened a session before the key went: it ends too.
  const late = await revokeAllSessions(deps, system, { userId: user.userId, reason: 'admin', by });
  const proof: ErasureCompleted['data'] = {
    erasureId: e.erasureId,
    subjectId: user.userId,
    keyFingerprint,
    revoked: { sessions: sessions + late, apiKeys },
    // `UserErased` scrubs these in the append's transaction (users, memberships, sessions' address and browser).
    scrubbed: { readModels: ['users', 'user_sites', 'sessions'], mailOutbox, sarExports },
    shredded: [`subject:${user.userId}`, ...shreddedSuppressions],
    at: now().toISOString(),
  };
  await recordProof(deps.store, e.siteId, proof, metadata);
}

/** The `UserErased` of the person's stream, if any. */
async function erasedBy(deps: Pick<Deps, 'store'>, userId: string): Promise<UserErased['data'] | null> {
  let found: UserErased['data'] | null = null;
  for await (const ev of deps.store.readStream<UserEvent>(userStream(userId)))
    if (ev.type === 'UserErased') found = (ev as unknown as UserErased).data;
  return found;
}

/** The resuming loop's metadata: the system, on behalf of the erasure's asker. */
const loopMetadata = (siteId: string, erasureId: string, now: Date): EventMetadata => ({
  siteId,
  actor: { type: 'system', id: 'erasure' },
  correlationId: `erasure:${erasureId}`,
  causationId: null,
  requestId: null,
  occurredAt: now.toISOString(),
});

/**
 * The loop that completes erasures cut short (a crash, a deploy): those started more than `graceMs` ago without
 * their proof. It acts for the admin who asked, only while they may still erase the person; otherwise the erasure
 * stays listed as incomplete until an admin asks again.
 */
export async function resumeErasures(deps: Deps, graceMs: number): Promise<number> {
  const now = deps.clock.now();
  const open = await incompleteErasures(deps.db, { startedBefore: new Date(now.getTime() - graceMs), limit: 50 });
  let done = 0;
  for (const o of open) {
    const { by } = await erasureProof(deps, o.siteId, o.erasureId);
    if (isItemSubject(o.subjectId)) {
      // An item's erasure needs no one's rights to finish: the asker was the site's admin, and only shredding is left.
      await completeItemErasure(deps, o, loopMetadata(o.siteId, o.erasureId, now));
      done++;
      continue;
    }
    const asker = await findUserById(deps.db, by);
    const subject = await findUserById(deps.db, o.subjectId);
    if (!asker || asker.status !== 'active' || !subject) continue;
    const actor: Actor = {
      type: 'user',
      id: asker.userId,
      email: '',
      instanceAdmin: asker.instanceAdmin,
      roles: asker.roles,
      tokenVersion: asker.tokenVersion,
    };
    try {
      await mayErase(deps, actor, subject, o.siteId);
    } catch {
      continue;
    }
    await completeErasure(deps, o, loopMetadata(o.siteId, o.erasureId, now));
    done++;
  }
  return done;
}

export interface ErasureRecord {
  erasureId: string;
  subjectId: string;
  reason: string;
  by: string;
  startedAt: string;
  completed: boolean;
  /** `incomplete`: started without a proof yet (running, or cut short and completed when asked again). */
  status: 'completed' | 'incomplete';
  completedAt: string | null;
  keyFingerprint: string | null;
  revoked: { sessions: number; apiKeys: number } | null;
  scrubbed: { readModels: string[]; mailOutbox: number; sarExports?: number } | null;
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
        status: 'incomplete',
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
        status: 'completed',
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
