import { createHash } from 'node:crypto';
import type { DomainEvent } from '../../kernel/es/event.ts';
import type { TrustedIssuerConfig } from './issuer.schema.ts';

export type { TrustedIssuerConfig } from './issuer.schema.ts';

/** An instance admin trusted an external identity provider for a site: its JWTs may authenticate there. */
export type TrustedIssuerRegistered = DomainEvent<
  'TrustedIssuerRegistered',
  { issuerId: string; siteId: string; config: TrustedIssuerConfig; at: string }
>;
/** A trusted issuer's record changed; `config` is the whole record after the change. */
export type TrustedIssuerUpdated = DomainEvent<
  'TrustedIssuerUpdated',
  { issuerId: string; siteId: string; config: TrustedIssuerConfig; at: string }
>;
/** A trusted issuer was removed: its tokens are no longer recognised on the site. */
export type TrustedIssuerRemoved = DomainEvent<
  'TrustedIssuerRemoved',
  { issuerId: string; siteId: string; at: string }
>;

export type IssuerEvent = TrustedIssuerRegistered | TrustedIssuerUpdated | TrustedIssuerRemoved;
export const ISSUER_EVENT_TYPES = ['TrustedIssuerRegistered', 'TrustedIssuerUpdated', 'TrustedIssuerRemoved'] as const;

/** An `iss` value was taken by an issuer of the site: the log's unique constraint on issuers per site. */
export type TrustedIssuerClaimed = DomainEvent<'TrustedIssuerClaimed', { issuerId: string; at: string }>;
/** The issuer holding an `iss` value let it go (removed, or moved to another value). */
export type TrustedIssuerReleased = DomainEvent<'TrustedIssuerReleased', { issuerId: string; at: string }>;
export type IssuerClaimEvent = TrustedIssuerClaimed | TrustedIssuerReleased;

export const issuerStream = (siteId: string, issuerId: string) => `${siteId}/issuer/${issuerId}`;
/** One stream per site and `iss` value (hashed: an `iss` is a URL of any length and alphabet). */
export const issuerClaimStream = (siteId: string, iss: string) =>
  `${siteId}/issuer-claim/${createHash('sha256').update(iss).digest('hex')}`;
