import type { DomainEvent } from '../../kernel/es/event.ts';

/**
 * A site got an API key. Only the SHA-256 of the key's secret is kept; the plaintext was shown once, in the
 * answer to its creation. `allowedOrigins` is set for publishable keys only.
 */
export type ApiKeyCreated = DomainEvent<
  'ApiKeyCreated',
  {
    keyId: string;
    siteId: string;
    name: string;
    role: string;
    publishable: boolean;
    allowedOrigins: string[] | null;
    expiresAt: string | null;
    /** The first characters of the key, shown so people can tell their keys apart. */
    prefix: string;
    secretHash: string;
    createdBy: string;
    at: string;
  }
>;
/** The key stopped working for good. */
export type ApiKeyRevoked = DomainEvent<'ApiKeyRevoked', { keyId: string; siteId: string; by: string; at: string }>;

export type ApiKeyEvent = ApiKeyCreated | ApiKeyRevoked;
export const API_KEY_EVENT_TYPES = ['ApiKeyCreated', 'ApiKeyRevoked'] as const;

export const apiKeyStream = (siteId: string, keyId: string) => `${siteId}/api-key/${keyId}`;
