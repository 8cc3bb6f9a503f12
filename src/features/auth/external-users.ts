import { createHash, randomUUID } from 'node:crypto';
import type { Config } from '../../config.ts';
import type { AddressHasher } from '../../contracts/auth/address-hash.ts';
import type { Decider } from '../../kernel/es/decider.ts';
import type { DomainEvent, EventMetadata } from '../../kernel/es/event.ts';
import type { EventStore } from '../../kernel/es/event-store.ts';
import { handleCommand, handleCommands, streamCommand } from '../../kernel/es/handle-command.ts';
import { aggregateStream } from '../../kernel/es/aggregate-stream.ts';
import type { Db } from '../../kernel/db/database.ts';
import { DomainError } from '../../kernel/http/errors.ts';
import { newId } from '../../kernel/ids.ts';
import { SYSTEM_SITE } from '../../kernel/tenancy/site.ts';
import { userDecider } from './user.decider.ts';
import { newIdentityCommands } from './identity.ts';
import { userStream } from '../../contracts/auth/user.events.ts';
import { ExternalEmailRequired, ExternalEmailTaken, ExternalIdentityBound } from './auth.errors.ts';

/**
 * An external identity (a trusted issuer and the subject it names) was bound to a user created for it just in
 * time. The stream is the identity's unique constraint: the first binding wins, there is never a second user.
 */
export type ExternalIdentityClaimed = DomainEvent<
  'ExternalIdentityClaimed',
  { userId: string; issuerId: string; at: string }
>;

type ClaimIdentity = { type: 'ClaimExternalIdentity'; data: { userId: string; issuerId: string; now: string } };

const identityDecider: Decider<{ userId: string | null }, ClaimIdentity, ExternalIdentityClaimed> = {
  initialState: () => ({ userId: null }),
  evolve: (_s, e) => ({ userId: e.data.userId }),
  decide: (cmd, s) => {
    if (s.userId) throw new ExternalIdentityBound();
    return [{ type: 'ExternalIdentityClaimed', data: { ...cmd.data, at: cmd.data.now } }];
  },
};

/** One stream per identity, by hash (the subject may be personal data). */
export const externalIdentityStream = (issuerId: string, subject: string) =>
  `${SYSTEM_SITE}/external-identity/${createHash('sha256').update(`${issuerId}\u0000${subject}`).digest('hex')}`;

export interface ExternalUserInput {
  issuerId: string;
  subject: string;
  email: string | null;
  siteId: string;
  role: string;
}

/** The user bound to an external identity, or null when none was provisioned. */
export async function externalUserId(store: EventStore, issuerId: string, subject: string): Promise<string | null> {
  const { state } = await aggregateStream<string | null, ExternalIdentityClaimed>(
    store,
    externalIdentityStream(issuerId, subject),
    (userId, e) => (e.type === 'ExternalIdentityClaimed' ? e.data.userId : userId),
    () => null,
  );
  return state;
}

const metadataFor = (issuerId: string, now: Date): EventMetadata => ({
  siteId: SYSTEM_SITE,
  actor: { type: 'system', id: `issuer:${issuerId}` },
  correlationId: randomUUID(),
  causationId: null,
  requestId: null,
  occurredAt: now.toISOString(),
});

/**
 * Just-in-time provisioning: the user of an external identity, created on its first request (active, no
 * password, the mapped role on the site), then kept on the role the issuer maps. The identity binding, the
 * email claim and the user are written in one atomic append, so concurrent first requests make one user. An
 * address that already belongs to another account is refused, never linked (that would hand the account to
 * whoever controls the issuer).
 */
export async function provisionExternalUser(
  deps: { db: Db; store: EventStore; addresses: AddressHasher; config: Config; now: Date },
  input: ExternalUserInput,
): Promise<string> {
  const { db, store } = deps;
  const now = deps.now.toISOString();
  const metadata = metadataFor(input.issuerId, deps.now);
  const grant = (userId: string) =>
    handleCommand(
      store,
      userDecider,
      userStream(userId),
      { type: 'GrantSiteRole', data: { userId, siteId: input.siteId, role: input.role, now } },
      { metadata },
    );
  const existing = await externalUserId(store, input.issuerId, input.subject);
  if (existing) {
    await grant(existing);
    return existing;
  }
  if (!input.email) throw new ExternalEmailRequired();
  const userId = newId();
  const steps = [
    streamCommand({
      decider: identityDecider,
      streamId: externalIdentityStream(input.issuerId, input.subject),
      command: { type: 'ClaimExternalIdentity', data: { userId, issuerId: input.issuerId, now } },
    }),
    ...(await newIdentityCommands(
      { db, store, addresses: deps.addresses, config: deps.config, clock: { now: () => deps.now } },
      { userId, email: input.email, status: 'active' },
      { siteId: input.siteId, role: input.role },
    )),
  ];
  try {
    await handleCommands(store, steps, { metadata });
    return userId;
  } catch (err) {
    if (!(err instanceof DomainError) || err.code !== 'CONFLICT') throw err;
    // A concurrent first request bound the identity: use its user. Otherwise the address is someone else's.
    const winner = await externalUserId(store, input.issuerId, input.subject);
    if (!winner) throw new ExternalEmailTaken();
    await grant(winner);
    return winner;
  }
}
