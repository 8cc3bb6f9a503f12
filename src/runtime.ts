import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Config } from './config.ts';
import type { AppDeps } from './deps.ts';
import { allProjectors, features } from './features/index.ts';
import { createAuthorizer } from './features/access/index.ts';
import { schemaReader } from '../projections/item-documents/index.ts';
import { startLeaderLoop } from './kernel/leader-loop.ts';
import { AddressHasher, stepUpError, TokenService } from './features/auth/index.ts';
import { systemClock, type Clock } from './kernel/clock.ts';
import { checkPoolSize, createDatabase, type Database } from './kernel/db/create-db.ts';
import type { DB } from './kernel/db/database.ts';
import { migrate } from './kernel/db/migrate.ts';
import { checkServingRole, grantServing } from './kernel/db/row-security.ts';
import { instanceSecret } from './kernel/crypto/instance-secrets.ts';
import { catchUpOnce, projectionState, startAsyncProjections } from './kernel/es/async-projections.ts';
import { placeReactors, startReactors, type ReactorRunner } from './kernel/es/reactor-runner.ts';
import { EsdbEventStore } from './kernel/es/esdb-event-store.ts';
import type { EventStore, GlobalLog } from './kernel/es/event-store.ts';
import { PgEventStore } from './kernel/es/pg-event-store.ts';
import { ProjectedStore } from './kernel/es/projected-store.ts';
import { singleNode, VersionCachedStore } from './kernel/es/version-cache.ts';
import { PgVersionChannel } from './kernel/db/version-channel.ts';
import { ProjectionEngine } from './kernel/es/projection-engine.ts';
import { reconcileProjectionSource } from './kernel/es/projection-source.ts';
import { ProjectionSubscription } from './kernel/es/projection-subscription.ts';
import type { ProjectionContext, Projector } from './kernel/es/projector.ts';
import { MemoryRateLimiter, type RateLimiter } from './kernel/rate-limit/limiter.ts';
import { RedisRateLimiter } from './kernel/rate-limit/redis-limiter.ts';
import { startMailSender } from './kernel/mail/smtp-sender.ts';
import { DiskObjectStorage } from './kernel/storage/disk-storage.ts';
import { S3ObjectStorage } from './kernel/storage/s3-storage.ts';
import type { ObjectStorage } from './kernel/storage/object-storage.ts';
import { checkParts, type PersonalDataPart } from './kernel/privacy/personal-data.ts';
import { createSharedCache } from './kernel/cache/redis-shared-cache.ts';
import { RealtimeHub } from './kernel/realtime/hub.ts';
import { startRelay } from './kernel/realtime/relay.ts';
import { wrapSubjectKeys } from './kernel/privacy/subject-key-wrap.ts';
import { AfterAnswer } from './kernel/after-answer.ts';

/** The streams every request reads the version of: a site's schema and its access model. */
const WATCHED = /^[^/]+\/(schema|access)\//;

export interface Runtime {
  deps: AppDeps;
  stop(): Promise<void>;
}

/** Files go to S3-compatible storage when S3_BUCKET is set, else to the disk (SVC_FILES_DIR, SVC_DATA_DIR/files). */
export function storageFromConfig(config: Config): ObjectStorage {
  if (config.S3_BUCKET)
    return new S3ObjectStorage({
      endpoint: config.S3_ENDPOINT,
      bucket: config.S3_BUCKET,
      region: config.S3_REGION,
      accessKeyId: config.S3_ACCESS_KEY_ID,
      secretAccessKey: config.S3_SECRET_ACCESS_KEY,
      forcePathStyle: config.S3_FORCE_PATH_STYLE,
      prefix: config.S3_PREFIX,
    });
  return new DiskObjectStorage(config.SVC_FILES_DIR ?? path.join(config.SVC_DATA_DIR, 'files'));
}

/** DATABASE_URL names the serving role; DATABASE_MIGRATION_URL, when set, the tables' owner. */
export async function databaseFromConfig(config: Config): Promise<Database> {
  if (config.DATABASE_URL) checkPoolSize(config.DATABASE_POOL_SIZE);
  return config.DATABASE_URL
    ? createDatabase({
        kind: 'postgres',
        url: config.DATABASE_URL,
        ownerUrl: config.DATABASE_MIGRATION_URL,
        poolSize: config.DATABASE_POOL_SIZE,
      })
    : createDatabase({ kind: 'pglite', dataDir: path.resolve(config.SVC_DATA_DIR) });
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
  const projectors = allProjectors();
  const logged = await eventStoreFromConfig(config, database, servingRole, log, context);
  const { events, subscription, engine } = logged;
  const channel = database.kind === 'postgres' ? new PgVersionChannel(database.pool, log) : singleNode;
  if (channel instanceof PgVersionChannel) await channel.start();
  // The schema's and the access model's versions, which every request checks, from memory (DESIGN: decisions).
  const store = new VersionCachedStore(logged.store, channel, {
    watched: (streamId) => WATCHED.test(streamId),
    maxAgeMs: config.SVC_VERSION_CACHE_MS,
    log,
  });
  const asyncProjectors = projectors.filter((p) => p.mode === 'async');
  const worker = startAsyncProjections({
    db,
    events,
    locks: database.locks,
    projectors: opts.asyncWorker === false ? [] : asyncProjectors,
    log,
    pollMs: config.SVC_ASYNC_PROJECTION_POLL_MS,
    context,
  });
  if (config.NODE_ENV === 'production' && !config.JWT_SECRET && !config.keyring.activeKeyId)
    log.warn(
      'neither JWT_SECRET nor ENCRYPTION_KEY is set: the token signing key is kept in the database in clear; set one of them',
    );
  const secret = config.JWT_SECRET ?? (await persistedSecret(database.owner, 'jwt_secret', log, config));
  const setupToken = config.SVC_REQUIRE_SETUP_TOKEN
    ? (config.SVC_SETUP_TOKEN ?? randomBytes(24).toString('base64url'))
    : null;
  if (setupToken && !config.SVC_SETUP_TOKEN)
    log.warn({ setupToken }, 'setup token issued: send it as setupToken to POST /api/v1/setup/complete');
  const limiter: RateLimiter = config.REDIS_URL
    ? new RedisRateLimiter({
        url: config.REDIS_URL,
        prefix: `${config.REDIS_KEY_PREFIX}rl:`,
        failClosed: config.SVC_RATE_LIMIT_FAIL_CLOSED,
        log,
      })
    : new MemoryRateLimiter();
  const mail = config.SMTP_URL
    ? startMailSender({ db, url: config.SMTP_URL, from: config.SMTP_FROM, log, pollMs: config.SVC_MAIL_POLL_MS })
    : null;
  const hub = new RealtimeHub(
    createSharedCache({
      url: config.REDIS_URL,
      prefix: `${config.REDIS_KEY_PREFIX}rt:`,
      onError: (err) =>
        log.warn(
          { err },
          "realtime: Redis unreachable; frames reach this node's own clients only (the inbox and the replay on reconnection cover the rest)",
        ),
    }),
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
  let parts: PersonalDataPart[] | undefined;
  const deps: AppDeps = {
    config,
    database,
    db,
    store,
    engine,
    clock: opts.clock ?? systemClock,
    tokens: new TokenService(secret, config.ACCESS_TOKEN_TTL_S),
    addresses: new AddressHasher(await persistedSecret(database.owner, 'email_hash_key', log, config)),
    limiter,
    storage: storageFromConfig(config),
    setupToken,
    realtime: { hub, relay },
    afterAnswer: new AfterAnswer({ max: config.SVC_AFTER_ANSWER_MAX, log }),
    flushMail: () => mail?.flush() ?? Promise.resolve(0),
    stepUp: (userId) => stepUpError(deps, userId),
    schemas: schemaReader(db, store),
    authorizer: createAuthorizer({ store, clock: opts.clock ?? systemClock, stepUp: (id) => stepUpError(deps, id) }),
    drainAsync: () => drainAsyncProjectors(db, events, asyncProjectors, context),
    drainReactors: (name) => reactors.drain(name),
    retentionKinds: () => features.flatMap((f) => f.retention?.(deps) ?? []),
    personalData: () => (parts ??= checkParts(features.flatMap((f) => f.personalData?.(deps) ?? []))),
  };
  const reactorList = features.flatMap((f) => f.reactors?.(deps) ?? []);
  await placeReactors(db, events, reactorList);
  // Reactors read the log itself (`events`), never waiting on projections; what they send goes through `store`.
  const reactors: ReactorRunner = startReactors({
    db,
    events,
    locks: database.locks,
    reactors: reactorList,
    log,
    pollMs: config.SVC_ASYNC_PROJECTION_POLL_MS,
    poll: opts.asyncWorker !== false,
  });
  const loops =
    opts.asyncWorker === false
      ? []
      : features
          .flatMap((f) => f.loops?.(deps) ?? [])
          .map((l) => startLeaderLoop({ ...l, locks: database.locks, log }));
  return {
    deps,
    stop: async () => {
      // The answers are sent (the app closed first); the work they promised ends before anything it uses stops.
      await deps.afterAnswer.close();
      await Promise.all(loops.map((l) => l.stop()));
      await reactors.stop();
      await relay.stop();
      await hub.close();
      await worker.stop();
      await subscription?.stop();
      await mail?.stop();
      await limiter.close();
      await deps.storage.close();
      await channel.close();
      if (events.kind !== 'postgres') await events.close();
    },
  };
}

/**
 * The event store and the projection engine. With EVENTSTORE_URL the events go to EventStoreDB and the read models
 * and checkpoints stay in the SQL database; a store without a shared transaction (or SVC_PROJECTION_MODE=subscription)
 * runs the inline projectors from a subscription, and appends wait until they are projected (read-your-writes).
 * `events` is the store itself, for readers of the log that must not wait on projections.
 */
async function eventStoreFromConfig(
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
  const events: EventStore = config.EVENTSTORE_URL
    ? new EsdbEventStore(config.EVENTSTORE_URL, { prefix: config.EVENTSTORE_STREAM_PREFIX })
    : new PgEventStore(db, mode === 'inline' ? inline : [], { context });
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
 * Projects every event committed before the call. The global reader holds back events newer than the oldest open
 * transaction of the database (so none is ever skipped), so "no batch" can mean "not yet visible": drain until each
 * checkpoint reaches the log's head at the call, giving such a transaction up to 30 s to end.
 */
async function drainAsyncProjectors(
  db: Kysely<DB>,
  events: GlobalLog,
  projectors: Projector[],
  context: ProjectionContext,
): Promise<void> {
  const target = await events.headPosition();
  if (target === null) return;
  for (const p of projectors) {
    for (let i = 0; i < 1500; i++) {
      while ((await catchUpOnce(db, events, p, context)) > 0);
      const state = await projectionState(db, p.name);
      if (state?.status !== 'live' || events.comparePositions(state.checkpoint, target) >= 0) break;
      await new Promise((r) => setTimeout(r, 20));
    }
  }
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
