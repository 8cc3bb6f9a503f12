/**
 * The public surface of the event-log read surface: what slices may use.
 */
export { siteEvents, type LogEntry, type LogQuery } from './event-log.queries.ts';
