import { defineError } from '../../kernel/http/errors.ts';

/** A personal-data export asked for by an API key or another principal that is not a person. */
export const ExportNeedsUser = defineError(
  'PERMISSION_DENIED',
  'forbidden',
  () => 'only a user has personal data to export: sign in as that user',
);

/** A personal-data export asked for while impersonating: it is the account holder's own. */
export const ExportWhileImpersonating = defineError(
  'PERMISSION_DENIED',
  'forbidden',
  () => 'not while impersonating: a personal-data export is the account holder’s own',
);

/** A subject-access request for someone who is not a member of the site (or no one at all). */
export const SubjectNotFound = defineError<{ path: string[] }>(
  'NOT_FOUND',
  'not_found',
  () => 'no member of this site matches',
  (d) => ({ path: d.path }),
);

/** A subject-access export this site did not produce. */
export const SubjectAccessNotFound = defineError<{ id: string }>(
  'NOT_FOUND',
  'not_found',
  (d) => `subject-access export ${d.id} not found`,
  () => ({ path: ['id'] }),
);

/** A subject-access export whose file was deleted: past the retention horizon (`expired`), or its subject erased. */
export const SubjectAccessDeleted = defineError<{ id: string; reason: 'expired' | 'erased'; at: string }>(
  'NOT_FOUND',
  'not_found',
  (d) =>
    d.reason === 'expired'
      ? `subject-access export ${d.id} was deleted at ${d.at}: it was kept as long as the site's sar_exports horizon`
      : `subject-access export ${d.id} was deleted at ${d.at}: its subject was erased`,
  (d) => ({ path: ['id'], extensions: { reason: d.reason, deletedAt: d.at } }),
);

/** A subject-access request id used twice (ids are generated: a retry of the same append). */
export const SubjectAccessExists = defineError<{ id: string }>(
  'CONFLICT',
  'conflict',
  (d) => `subject-access export ${d.id} already exists`,
);
