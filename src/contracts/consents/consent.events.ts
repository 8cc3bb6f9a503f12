import type { DomainEvent } from '../../kernel/es/event.ts';

/** The spec's five consent types ("Consent"). */
export const CONSENT_TYPES = ['marketing', 'analytics', 'personalization', 'functional', 'sale_share'] as const;
export type ConsentType = (typeof CONSENT_TYPES)[number];

interface ConsentData {
  userId: string;
  consentType: ConsentType;
  /** Where the choice was made (a banner, a settings page, a form). */
  source: string;
  /** The version of the consent text the person saw. */
  version: string;
  at: string;
}

/** The spec's audit event: a person granted a consent (or granted it again for a new text version or source). */
export type ConsentGranted = DomainEvent<'consent_granted', ConsentData>;
/** The spec's audit event: a person withdrew a consent. */
export type ConsentWithdrawn = DomainEvent<'consent_withdrawn', ConsentData>;
export type ConsentEvent = ConsentGranted | ConsentWithdrawn;
export const CONSENT_EVENT_TYPES = ['consent_granted', 'consent_withdrawn'] as const;

/** A person restricted the processing of their data on a site (GDPR Art. 18), or lifted the restriction. */
export type ProcessingRestricted = DomainEvent<
  'ProcessingRestricted',
  { userId: string; reason: string | null; at: string }
>;
export type ProcessingRestrictionLifted = DomainEvent<'ProcessingRestrictionLifted', { userId: string; at: string }>;
export type RestrictionEvent = ProcessingRestricted | ProcessingRestrictionLifted;
export const RESTRICTION_EVENT_TYPES = ['ProcessingRestricted', 'ProcessingRestrictionLifted'] as const;

/** One stream per (site, person, type): its current state and its history. */
export const consentStream = (siteId: string, userId: string, type: ConsentType) =>
  `${siteId}/consent/${userId}.${type}`;
/** One stream per (site, person). */
export const restrictionStream = (siteId: string, userId: string) => `${siteId}/restriction/${userId}`;
