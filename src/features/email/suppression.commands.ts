import type { AppDeps } from '../../deps.ts';
import type { Db } from '../../kernel/db/database.ts';
import { handleCommand, readState } from '../../kernel/es/handle-command.ts';
import type { CommandContext } from '../../kernel/http/command-meta.ts';
import type { Keyring } from '../../kernel/crypto/keyring.ts';
import { seal, shred, subjectOpener, type Sealed } from '../../platform/privacy/pii.ts';
import { addressHash, normaliseAddress } from './address.ts';
import { suppressionStream, suppressionSubject, type SuppressionSource } from '../../contracts/email/email.events.ts';
import { suppressionDecider, type SuppressionState } from './suppression.decider.ts';

type Ctx = Pick<CommandContext, 'siteId' | 'now' | 'metadata' | 'actor'>;
type Deps = Pick<AppDeps, 'db' | 'store' | 'addresses' | 'config'>;

/** A suppression as the API shows it; `email` is null once the address was erased (its key shredded). */
export interface SuppressionRecord {
  email: string | null;
  emailHash: string;
  reason: string | null;
  source: SuppressionSource;
  suppressedAt: string;
}

/** The sealed address, or null when its key is gone (erased; a key made since opens only what it sealed). */
export async function openAddress(
  db: Db,
  ring: Keyring,
  siteId: string,
  emailHash: string,
  sealed: Sealed,
): Promise<string | null> {
  // The opener answers null for a value its key did not seal; a wrapped key that does not open still throws.
  const open = await subjectOpener(db, ring, suppressionSubject(siteId, emailHash));
  return open(sealed);
}

const stateOf = async (deps: Deps, siteId: string, emailHash: string) =>
  (await readState(deps.store, suppressionDecider, suppressionStream(siteId, emailHash))).state;

async function recordOf(deps: Deps, siteId: string, emailHash: string, s: SuppressionState) {
  if (!s.suppressed) throw new Error('not suppressed');
  const email = await openAddress(deps.db, deps.config.keyring, siteId, emailHash, s.email);
  return { email, emailHash, reason: s.reason, source: s.source, suppressedAt: s.at } satisfies SuppressionRecord;
}

/**
 * Puts an address on the site's list (admin or unsubscribe link). Idempotent: an address already there is answered
 * with its suppression as it stands, `created: false`, and nothing is appended or sealed.
 */
export async function suppressAddress(
  deps: Deps,
  ctx: Ctx,
  input: { email: string; reason: string | null; source: SuppressionSource },
): Promise<{ record: SuppressionRecord; created: boolean }> {
  const emailHash = addressHash(deps.addresses, input.email);
  const before = await stateOf(deps, ctx.siteId, emailHash);
  if (before.suppressed) return { record: await recordOf(deps, ctx.siteId, emailHash, before), created: false };
  const email = await seal(
    deps.db,
    deps.config.keyring,
    suppressionSubject(ctx.siteId, emailHash),
    normaliseAddress(input.email),
  );
  const { now, by } = { now: ctx.now.toISOString(), by: ctx.actor.id };
  const r = await handleCommand(
    deps.store,
    suppressionDecider,
    suppressionStream(ctx.siteId, emailHash),
    { type: 'SuppressAddress', data: { emailHash, email, source: input.source, reason: input.reason, now, by } },
    { metadata: ctx.metadata },
  );
  return { record: await recordOf(deps, ctx.siteId, emailHash, r.state), created: r.events.length > 0 };
}

/** Takes an address off the site's list: 404 NOT_FOUND when it is not on it. */
export async function unsuppressAddress(deps: Deps, ctx: Ctx, input: { email: string }): Promise<void> {
  const emailHash = addressHash(deps.addresses, input.email);
  await handleCommand(
    deps.store,
    suppressionDecider,
    suppressionStream(ctx.siteId, emailHash),
    { type: 'UnsuppressAddress', data: { emailHash, now: ctx.now.toISOString(), by: ctx.actor.id } },
    { metadata: ctx.metadata },
  );
}

/** Whether marketing mail to this address is suppressed on the site (read from the address's stream). */
export async function isSuppressed(
  deps: Pick<AppDeps, 'store' | 'addresses'>,
  siteId: string,
  email: string,
): Promise<boolean> {
  const emailHash = addressHash(deps.addresses, email);
  return (await readState(deps.store, suppressionDecider, suppressionStream(siteId, emailHash))).state.suppressed;
}

/**
 * Erasure of a person: destroys the key that seals their suppressed address on the site, so the list shows
 * `email: null` beside the hash, and the log's copies are unreadable for good. The suppression itself stays (it is
 * what keeps marketing mail from them). Harmless for an address that was never suppressed.
 */
export async function shredSuppressedAddress(
  deps: Pick<AppDeps, 'db' | 'addresses'>,
  siteId: string,
  email: string,
): Promise<void> {
  await shred(deps.db, suppressionSubject(siteId, addressHash(deps.addresses, email)));
}
