import type { DomainEvent } from '../../kernel/es/event.ts';

/**
 * A site admin produced a subject-access export of one of the site's members (GDPR art. 15): where it is kept and
 * what it holds (size, SHA-256), never any of its personal data.
 */
export type SubjectAccessExported = DomainEvent<
  'SubjectAccessExported',
  {
    sarId: string;
    subjectId: string;
    format: 'json' | 'zip';
    objectKey: string;
    size: number;
    sha256: string;
    by: string;
    at: string;
  }
>;

/**
 * An export's file was deleted from storage: past the site's `sar_exports` horizon (`retention`), or because its
 * subject was erased (`erasure`). The record stays; fetching the file answers 404 with the reason.
 */
export type SubjectAccessExportDeleted = DomainEvent<
  'SubjectAccessExportDeleted',
  { sarId: string; objectKey: string; reason: 'retention' | 'erasure'; at: string }
>;

export type PrivacyEvent = SubjectAccessExported | SubjectAccessExportDeleted;
export const PRIVACY_EVENT_TYPES = ['SubjectAccessExported', 'SubjectAccessExportDeleted'] as const;

/** One stream per subject-access request, under the site that made it. */
export const sarStream = (siteId: string, sarId: string) => `${siteId}/sar/${sarId}`;
