import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Config } from './config.ts';
import type { AppDeps } from './deps.ts';
import { allProjectors, features } from './features/index.ts';
import { createAuthorizer } from './features/access/index.ts';
import { itemsApi, type ItemsApi } from './features/items/index.ts';
import { schemaReader } from '../projections/schema/index.ts';
import { startLeaderLoop } from './platform/leader-loop.ts';
import { embeddedMaintenance } from './platform/db/embedded-maintenance.ts';
import { stepUpError, TokenService } from './features/auth/index.ts';
import { AddressHasher } from './contracts/auth/address-hash.ts';
import { systemClock, type Clock } from './kernel/clock.ts';
import type { Database, DB } from './kernel/db/database.ts';
import {
  eventStoreFromConfig,
  limiterFromConfig,
  mailFromConfig,
  sharedCachesFromConfig,
  storageFromConfig,
  versionChannelFromConfig,
} from './adapters/load.ts';
import { migrate } from './platform/db/migrate.ts';
import { checkServingRole, grantServing } from './kernel/db/row-security.ts';
import { instanceSecret } from './platform/crypto/instance-secrets.ts';
import { placeReactors } from './platform/es/reactor-state.ts';
import { startLogFeed, type LogFeedOptions } from './platform/es/log-feed.ts';
import type { EventStore } from './kernel/es/event-store.ts';
import { ProjectedStore } from './platform/es/projected-store.ts';
import { VersionCachedStore } from './platform/es/version-cache.ts';
import { ProjectionEngine } from './platform/es/projection-engine.ts';
import { reconcileProjectionSource } from './platform/es/projection-source.ts';
import { ProjectionSubscription } from './platform/es/projection-subscription.ts';
import type { ProjectionContext, Projector } from './kernel/es/projector.ts';
import { checkParts, type PersonalDataPart } from './platform/privacy/personal-data.ts';
import { RealtimeHub } from './platform/realtime/hub.ts';
import { startRelay } from './platform/realtime/relay.ts';
import { wrapSubjectKeys } from './platform/privacy/subject-key-wrap.ts';
import { AfterAnswer } from './kernel/after-answer.ts';

/** The streams every request reads the version of: a site's schema and its access model. */
const WATCHED = /^[^/]+\/(schema|access)\//;

export interface Runtime {
  deps: AppDeps;
  stop(): Promise<void>;
}

/**
 * Migrates and grants as the owner; with a serving role of its own, checks that it can step over no wall first.
 * Returns that role's name (null when one role owns and serves).
 */
async function prepareRoles(database: Database, log: Logger): Promise<string | null> {
  const servingRole = database.separateRoles ? await checkServingRole(database.db) : null;
  if (database.kind === 'postgres' && !servingRole)
    log.warn(
      'DATABASE_MIGRATION_URL is not set: one role owns the tables and serves requests, so row-level security is not a wall (only the application\'s own site filters are); see "Server mode" in the README',
    );
  await migrate(database.owner);
  return servingRole;
}

/**
 * Wires the service on an open database: migrations, the event store (the SQL database's own, or EventStoreDB
 * with EVENTSTORE_URL), projections brought to their code version, inline projectors inside appends or behind a
 * subscription, the async projection worker, and token signing.
 */
export async function startRuntime(
  config: Config,
  database: Database,
  log: Logger,
  opts: { clock?: Clock; asyncWorker?: boolean } = {},
): Promise<Runtime> {
  const { db } = database;
  const servingRole = await prepareRoles(database, log);
  if (servingRole) await grantServing(database.owner, servingRole);
  // Before any projector opens personal data (the rebuilds of engine.setup()): a missing instance key stops here.
  await prepareSubjectKeys(database.owner, config, log);
  const context: ProjectionContext = { keyring: config.keyring };
  const logged = await logFromConfig(config, database, servingRole, log, context);
  const { events, subscription, engine } = logged;
  const channel = await versionChannelFromConfig(database, log);
  // The schema's and the access model's versions, which every request checks, from memory (DESIGN: decisions).
  const store = new VersionCachedStore(logged.store, channel, {
    watched: (streamId) => WATCHED.test(streamId),
    maxAgeMs: config.SVC_VERSION_CACHE_MS,
    log,
  });
  const asyncProjectors = allProjectors().filter((p) => p.mode === 'async');
  const io = await openIo(config, database, store, log);
  let parts: PersonalDataPart[] | undefined;
  let items: ItemsApi | undefined;
  const clock = opts.clock ?? systemClock;
  const deps: AppDeps = {
    config,
    database,
    db,
    store,
    engine,
    clock,
    tokens: new TokenService(await signingSecret(config, database, log), config.ACCESS_TOKEN_TTL_S),
    addresses: new AddressHasher(await persistedSecret(database.owner, 'email_hash_key', log, config)),
    limiter: io.limiter,
    storage: io.storage,
    sharedCache: io.sharedCache,
    setupToken: setupTokenFromConfig(config, log),
    realtime: { hub: io.hub, relay: io.relay },
    afterAnswer: new AfterAnswer({ max: config.SVC_AFTER_ANSWER_MAX, log }),
    flushMail: () => io.mail?.flush() ?? Promise.resolve(0),
    stepUp: (userId) => stepUpError(deps, userId),
    schemas: schemaReader(db, store),
    get items() {
      return (items ??= itemsApi(deps));
    },
    authorizer: createAuthorizer({ store, clock, stepUp: (id) => stepUpError(deps, id) }),
    drainAsync: () => background.feed.drainProjections(),
    drainReactors: (name) => background.feed.drain(name),
    retentionKinds: () => features.flatMap((f) => f.retention?.(deps) ?? []),
    personalData: () => (parts ??= checkParts(features.flatMap((f) => f.personalData?.(deps) ?? []))),
  };
  const background = await startBackground(deps, events, {
    nodes: { subscribe: (wake) => channel.onLog(wake), poke: () => channel.pokeLog() },
    active: opts.asyncWorker !== false,
    // Without the async worker the feed still holds them, and runs them only when drained.
    projectors: asyncProjectors,
    context,
    log,
  });
  return {
    deps,
    stop: async () => {
      // The answers are sent (the app closed first); the work they promised ends before anything it uses stops.
      await deps.afterAnswer.close();
      await background.stop();
      await io.relay.stop();
      await io.hub.close();
      await subscription?.stop();
      await io.mail?.stop();
      await io.limiter.close();
      await io.storage.close();
      await channel.close();
      if (events.kind !== 'postgres') await events.close();
    },
  };
}

/** The adapters of the ports a request or the relay talks to, each loaded only when configured. */
async function openIo(config: Config, database: Database, store: EventStore, log: Logger) {
  const [limiter, storage, sharedCache, mail] = await Promise.all([
    limiterFromConfig(config, log),
    storageFromConfig(config),
    sharedCachesFromConfig(config),
    mailFromConfig(config, database, log),
  ]);
  const hub = new RealtimeHub(
    sharedCache('rt:', (err) =>
      log.warn(
        { err },
        "realtime: Redis unreachable; frames reach this node's own clients only (the inbox and the replay on reconnection cover the rest)",
      ),
    ),
    log,
  );
  const relay = startRelay({
    hub,
    events: store,
    locks: database.locks,
    sources: features.flatMap((f) => f.frames ?? []),
    log,
    pollMs: config.SVC_REALTIME_POLL_MS,
  });
  return { limiter, storage, sharedCache, mail, hub, relay };
}

/**
 * The log feed (the reactors and the async projectors) and the features' leader loops, which run beside requests;
 * without the async worker the feed runs only when drained and no loop runs.
 */
async function startBackground(
  deps: AppDeps,
  events: EventStore,
  opts: {
    active: boolean;
    projectors: readonly Projector[];
    context: ProjectionContext;
    nodes: LogFeedOptions['nodes'];
    log: Logger;
  },
) {
  const { config, database, db } = deps;
  const { active, log } = opts;
  const reactors = features.flatMap((f) => f.reactors?.(deps) ?? []);
  await placeReactors(db, events, reactors);
  // Reactors read the log itself (`events`), never waiting on projections; what they send goes through `store`.
  const feed = startLogFeed({
    db,
    events,
    locks: database.locks,
    reactors,
    projectors: opts.projectors,
    context: opts.context,
    nodes: opts.nodes,
    log,
    active,
    debounceMs: config.SVC_FEED_DEBOUNCE_MS,
    sweepMs: config.SVC_FEED_SWEEP_MS,
  });
  // The embedded database has no autovacuum: a loop of the node's own does its work.
  const maintenance =
    active && database.kind === 'pglite' && config.SVC_EMBEDDED_MAINTENANCE_MS > 0
      ? embeddedMaintenance(database.owner, events, config.SVC_EMBEDDED_MAINTENANCE_MS)
      : null;
  const loops = active
    ? [...features.flatMap((f) => f.loops?.(deps) ?? []), ...(maintenance ? [maintenance] : [])].map((l) =>
        startLeaderLoop({ ...l, locks: database.locks, log, appends: events, nodes: opts.nodes }),
      )
    : [];
  return {
    feed,
    stop: async () => {
      maintenance?.stop();
      await Promise.all(loops.map((l) => l.stop()));
      await feed.stop();
    },
  };
}

/** The token signing key: JWT_SECRET, else one generated once and kept in the database (sealed under a key). */
async function signingSecret(config: Config, database: Database, log: Logger): Promise<string> {
  if (config.NODE_ENV === 'production' && !config.JWT_SECRET && !config.keyring.activeKeyId)
    log.warn(
      'neither JWT_SECRET nor ENCRYPTION_KEY is set: the token signing key is kept in the database in clear; set one of them',
    );
  return config.JWT_SECRET ?? (await persistedSecret(database.owner, 'jwt_secret', log, config));
}

/** The token POST /setup/complete needs when SVC_REQUIRE_SETUP_TOKEN is on (told in the log when generated). */
function setupTokenFromConfig(config: Config, log: Logger): string | null {
  const setupToken = config.SVC_REQUIRE_SETUP_TOKEN
    ? (config.SVC_SETUP_TOKEN ?? randomBytes(24).toString('base64url'))
    : null;
  if (setupToken && !config.SVC_SETUP_TOKEN)
    log.warn({ setupToken }, 'setup token issued: send it as setupToken to POST /api/v1/setup/complete');
  return setupToken;
}

/**
 * The event store and the projection engine. With EVENTSTORE_URL the events go to EventStoreDB and the read models
 * and checkpoints stay in the SQL database; a store without a shared transaction (or SVC_PROJECTION_MODE=subscription)
 * runs the inline projectors from a subscription, and appends wait until they are projected (read-your-writes).
 * `events` is the store itself, for readers of the log that must not wait on projections.
 */
async function logFromConfig(
  config: Config,
  database: Database,
  servingRole: string | null,
  log: Logger,
  context: ProjectionContext,
) {
  const { db } = database;
  const projectors = allProjectors();
  const inline = projectors.filter((p) => p.mode === 'inline');
  const mode = config.EVENTSTORE_URL ? 'subscription' : (config.SVC_PROJECTION_MODE ?? 'inline');
  const events = await eventStoreFromConfig(config, database, mode === 'inline' ? inline : [], context);
  const source = await reconcileProjectionSource(database.owner, events, mode, inline);
  const engine = new ProjectionEngine(database.owner, projectors, {
    events,
    serving: db,
    servingRole,
    inlineInAppends: mode === 'inline',
    log,
    context,
  });
  await engine.setup();
  const catchUp = (): ProjectionSubscription =>
    new ProjectionSubscription({
      db,
      events,
      projectors: inline,
      log,
      pollMs: config.SVC_SUBSCRIPTION_POLL_MS,
      context,
    });
  if (source.plan === 'catch-up') {
    const leaving = catchUp();
    await leaving.catchUp();
    await leaving.stop();
  }
  await source.record();
  if (mode === 'inline') return { store: events, events, subscription: null, engine };
  const subscription = catchUp();
  subscription.start();
  const store = new ProjectedStore(events, subscription, config.SVC_PROJECTION_WAIT_MS, log);
  return { store, events, subscription, engine };
}

/**
 * The subjects' personal-data keys under today's instance key: refuses to start when some are wrapped under a key
 * that is not configured (their data must never pass for erased); with an active key, wraps those in clear and
 * rewraps those under another configured key (rotation).
 */
async function prepareSubjectKeys(db: Kysely<DB>, config: Config, log: Logger): Promise<void> {
  const { wrapped, rewrapped } = await wrapSubjectKeys(db, config.keyring);
  if (wrapped + rewrapped > 0)
    log.info(
      { wrapped, rewrapped, keyId: config.keyring.activeKeyId },
      'subject keys wrapped under the active encryption key',
    );
}

/** A secret generated once and kept in the database (the JWT key sealed when an encryption key is configured). */
async function persistedSecret(db: Kysely<DB>, key: string, log: Logger, config: Config): Promise<string> {
  const { value, created, replaced } = await instanceSecret(db, key, config.keyring, { seal: key === 'jwt_secret' });
  if (replaced)
    log.error(
      `the stored ${key} was sealed with an encryption key that is no longer configured: a new one was made, so every session and token has ended`,
    );
  else if (created && key === 'jwt_secret')
    log.warn('JWT_SECRET is not set: generated one and stored it in the database');
  return value;
}
