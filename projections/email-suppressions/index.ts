/** The public surface of the email-suppressions read model: a site's suppressed addresses, sealed, by page. */
export { emailSuppressionsProjector } from './email-suppressions.projector.ts';
export { listSuppressions, type SuppressionRow } from './email-suppressions.queries.ts';
