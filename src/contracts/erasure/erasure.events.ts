import type { DomainEvent } from '../../kernel/es/event.ts';

/** An administrator asked for a person's erasure (no personal data: the subject's id, who, why). */
export type ErasureStarted = DomainEvent<
  'ErasureStarted',
  { erasureId: string; subjectId: string; reason: string; by: string; at: string }
>;
/** The proof of an erasure: the key destroyed (its fingerprint), what was revoked and what was scrubbed. */
export type ErasureCompleted = DomainEvent<
  'ErasureCompleted',
  {
    erasureId: string;
    subjectId: string;
    keyFingerprint: string | null;
    revoked: { sessions: number; apiKeys: number };
    /** `sarExports`: files of the person's subject-access exports deleted (absent from proofs before it). */
    scrubbed: { readModels: string[]; mailOutbox: number; sarExports?: number };
    shredded: string[];
    at: string;
  }
>;
export type ErasureEvent = ErasureStarted | ErasureCompleted;

/** One stream per erasure, under the site whose administrator asked for it. */
export const erasureStream = (siteId: string, erasureId: string) => `${siteId}/erasure/${erasureId}`;
