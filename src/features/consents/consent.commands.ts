import type { AppDeps } from '../../deps.ts';
import type { StoredEvent } from '../../kernel/es/event.ts';
import { handleCommand, readState } from '../../kernel/es/handle-command.ts';
import type { CommandContext } from '../../kernel/http/command-meta.ts';
import { SubjectErased } from '../../platform/privacy/pii.ts';
import { readAsSite } from '../../kernel/tenancy/site.ts';
import { userDecider } from '../auth/index.ts';
import { userStream } from '../../contracts/auth/user.events.ts';
import { restrictedAmong } from '../../../projections/consents/index.ts';
import { consentDecider, restrictionDecider, type ConsentRecord, type ConsentState } from './consent.decider.ts';
import {
  consentStream,
  restrictionStream,
  type ConsentEvent,
  type ConsentType,
  type RestrictionEvent,
} from '../../contracts/consents/consent.events.ts';
import { domainEvent } from '../../kernel/es/on-events.ts';

type Deps = Pick<AppDeps, 'store'>;

/** A person's choice on one consent type; answers the record as it now stands. */
export async function setConsent(
  deps: Deps,
  ctx: CommandContext,
  input: { userId: string; consentType: ConsentType; granted: boolean; source: string; version: string },
): Promise<ConsentRecord> {
  // A request that got in before the person's erasure ended its session records nothing about them after it.
  const person = (await readState(deps.store, userDecider, userStream(input.userId))).state;
  if (person.exists && person.erased) throw new SubjectErased();
  const data = { ...input, now: ctx.now.toISOString() };
  const res = await handleCommand(
    deps.store,
    consentDecider,
    consentStream(ctx.siteId, input.userId, input.consentType),
    { type: 'SetConsent', data },
    { metadata: ctx.metadata },
  );
  return res.state!;
}

/** A consent as it stood at `asOf` (folded from the log), or now. */
export async function consentAt(
  deps: Deps,
  siteId: string,
  userId: string,
  type: ConsentType,
  asOf?: Date,
): Promise<ConsentState> {
  const stream = consentStream(siteId, userId, type);
  if (!asOf) return (await readState(deps.store, consentDecider, stream)).state;
  let state = consentDecider.initialState();
  for await (const e of deps.store.readStream<ConsentEvent>(stream, { until: asOf }))
    state = consentDecider.evolve(state, domainEvent(e));
  return state;
}

export interface ConsentChange {
  event: ConsentEvent['type'];
  granted: boolean;
  source: string;
  version: string;
  at: string;
  actor: { type: string; id: string };
  correlationId: string;
}

/** Every choice on one consent type, oldest first, a page at a time: the audit events themselves, and how many. */
export async function consentHistory(
  deps: Deps,
  siteId: string,
  userId: string,
  type: ConsentType,
  page: { limit: number; offset: number },
): Promise<{ changes: ConsentChange[]; total: number }> {
  const stream = consentStream(siteId, userId, type);
  const total = (await deps.store.streamVersion(stream)) ?? 0;
  const changes: ConsentChange[] = [];
  if (page.offset >= total) return { changes, total };
  // Stream versions count from 1: the page is a range of them, read from the log and nothing more.
  const range = { fromVersion: page.offset + 1, toVersion: Math.min(total, page.offset + page.limit) };
  for await (const e of deps.store.readStream<ConsentEvent>(stream, range)) {
    const s = e as StoredEvent<ConsentEvent>;
    changes.push({
      event: s.type,
      granted: s.type === 'consent_granted',
      source: s.data.source,
      version: s.data.version,
      at: s.data.at,
      actor: { type: s.metadata.actor.type, id: s.metadata.actor.id },
      correlationId: s.metadata.correlationId,
    });
  }
  return { changes, total };
}

/** Restricts or lifts the restriction of processing of the person's data on the context's site. */
export async function setRestriction(
  deps: Deps,
  ctx: CommandContext,
  input: { userId: string; restricted: boolean; reason: string | null },
) {
  const data = { ...input, now: ctx.now.toISOString() };
  const res = await handleCommand(
    deps.store,
    restrictionDecider,
    restrictionStream(ctx.siteId, input.userId),
    { type: 'SetRestriction', data },
    { metadata: ctx.metadata },
  );
  return res.state;
}

/** The restriction as it stands, from the person's stream. */
export async function restrictionOf(deps: Deps, siteId: string, userId: string) {
  return (await readState(deps.store, restrictionDecider, restrictionStream(siteId, userId))).state;
}

/**
 * Of these people, those whose data may not be processed on the site beyond storage (GDPR Art. 18). Every process
 * that would act on a person's data or account asks this first (docs/decisions.md "Restriction of processing").
 */
export function restrictedPeople(deps: Pick<AppDeps, 'db'>, siteId: string, userIds: readonly string[]) {
  return readAsSite(deps.db, siteId, (db) => restrictedAmong(db, siteId, userIds));
}

export type { RestrictionEvent };
