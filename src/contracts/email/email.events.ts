import type { DomainEvent } from '../../kernel/es/event.ts';
import type { Sealed } from '../../platform/privacy/pii.ts';

/** Who put an address on the list: a site admin, or its owner through the unsubscribe link. */
export type SuppressionSource = 'admin' | 'unsubscribe';

/** What a suppression event records: the keyed hash, the normalised address sealed under the suppression's key. */
interface Suppressed {
  emailHash: string;
  /** The normalised address, sealed under `suppressionSubject(siteId, emailHash)`: erasure shreds that key. */
  email: Sealed;
  reason: string | null;
  at: string;
  by: string;
}

/** A site admin suppressed an address (spec audit event `email_suppressed`): marketing sends skip it. */
export type EmailSuppressed = DomainEvent<'email_suppressed', Suppressed>;
/** The address's owner used the unsubscribe link (spec audit event `email_unsubscribed`): marketing sends skip it. */
export type EmailUnsubscribed = DomainEvent<'email_unsubscribed', Suppressed>;
/** A site admin removed an address from the list (spec audit event `email_unsuppressed`). */
export type EmailUnsuppressed = DomainEvent<'email_unsuppressed', { emailHash: string; at: string; by: string }>;

export type SuppressionEvent = EmailSuppressed | EmailUnsubscribed | EmailUnsuppressed;
export const SUPPRESSION_EVENT_TYPES = ['email_suppressed', 'email_unsubscribed', 'email_unsuppressed'] as const;

/** One stream per (site, address): suppressing one address never waits for another. */
export const suppressionStream = (siteId: string, emailHash: string) => `${siteId}/email-suppression/${emailHash}`;

/** The personal-data subject whose key seals a suppressed address (one per site and address). */
export const suppressionSubject = (siteId: string, emailHash: string) => `suppression:${siteId}:${emailHash}`;
