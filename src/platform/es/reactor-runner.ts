import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { DB } from '../../kernel/db/database.ts';
import type { LockSession } from '../../kernel/db/leader-lock.ts';
import type { EventStore, GlobalLog } from '../../kernel/es/event-store.ts';
import type { Reactor } from '../../kernel/es/reactor.ts';
import { startLogFeed, type LogFeed } from './log-feed.ts';

export { placeReactors, REACTOR_MAX_ATTEMPTS } from './reactor-state.ts';

export interface ReactorRunnerOptions {
  db: Kysely<DB>;
  events: GlobalLog & Pick<EventStore, 'onAppended'>;
  /** The node's lock session for the leader lock (PostgreSQL); null on PGlite (one process owns the data directory). */
  locks: LockSession | null;
  reactors: readonly Reactor[];
  log: Logger;
  /** False: the reactors run only when drained (tests, and nodes that serve requests only). */
  poll?: boolean;
}

export type ReactorRunner = Pick<LogFeed, 'drain' | 'stop'>;

/** Reactors alone on the log feed (tests of one reactor; the service runs them with the async projectors). */
export function startReactors(opts: ReactorRunnerOptions): ReactorRunner {
  return startLogFeed({ ...opts, projectors: [], active: opts.poll !== false });
}
