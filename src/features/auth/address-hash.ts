import type { EventStore } from '../../kernel/es/event-store.ts';
import { emailClaimStream } from '../../contracts/auth/user.events.ts';
import { legacyAddressHash } from '../../contracts/auth/address-hash.ts';
import { EmailTaken } from './auth.errors.ts';

/**
 * Refuses an address claimed under the legacy name. Nobody writes legacy claim streams any more, so checking them
 * beside the atomic keyed claim keeps addresses unique across the change without migrating the log.
 */
export async function assertNoLegacyClaim(store: EventStore, email: string): Promise<void> {
  const version = await store.streamVersion(emailClaimStream(legacyAddressHash(email)));
  if (version !== null && version !== undefined) throw new EmailTaken();
}
