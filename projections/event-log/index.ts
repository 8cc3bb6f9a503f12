/**
 * The public surface of the event-log read surface: what slices may use.
 */
export {
  siteEvents,
  siteHead,
  siteStreamEvents,
  type CopiedEventRow,
  subjectEvents,
  type LogEntry,
  type LogQuery,
  type SubjectEventQuery,
  type SubjectEventRow,
} from './event-log.queries.ts';
