import type { Timestamp } from '../../src/kernel/db/database.ts';
import type { SuppressionSource } from '../../src/contracts/email/email.events.ts';

/** One row per suppressed address of a site (DDL in email-suppressions.projector.ts); removed when unsuppressed. */
export interface EmailSuppressionsTable {
  site_id: string;
  /** The keyed hash of the normalised address: what marketing sends compare. */
  email_hash: string;
  /** The normalised address, sealed under the suppression's subject key (unreadable once shredded). */
  email_sealed: string;
  source: SuppressionSource;
  reason: string | null;
  suppressed_at: Timestamp;
}

declare module '../../src/kernel/db/database.ts' {
  interface DB {
    email_suppressions: EmailSuppressionsTable;
  }
}
