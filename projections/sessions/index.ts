/**
 * The public surface of the sessions read model: what slices and other read models may use.
 */
export { sessionsProjector } from './sessions.projector.ts';
export {
  findSessionOwner,
  liveSessions,
  pruneEndedSessions,
  redactIp,
  sessionsOfUser,
  type SessionHistoryRow,
} from './sessions.queries.ts';
