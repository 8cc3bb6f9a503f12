import path from 'node:path';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { Database } from '../kernel/db/database.ts';
import type { EventStore } from '../kernel/es/event-store.ts';
import type { ProjectionContext, Projector } from '../kernel/es/projector.ts';
import { MemorySharedCache, type SharedCaches } from '../kernel/cache/shared-cache.ts';
import { MemoryRateLimiter, type RateLimiter } from '../kernel/rate-limit/limiter.ts';
import type { ObjectStorage } from '../kernel/storage/object-storage.ts';
import { singleNode, type VersionChannel } from '../platform/es/version-cache.ts';

/**
 * One adapter per port, picked from the configuration and loaded when it is picked: a process without S3_BUCKET
 * never loads the AWS SDK, one without REDIS_URL never loads ioredis, one without EVENTSTORE_URL never loads the
 * EventStoreDB client, one without SMTP_URL never loads nodemailer.
 */

/** DATABASE_URL names the serving role; DATABASE_MIGRATION_URL, when set, the tables' owner. */
export async function databaseFromConfig(config: Config): Promise<Database> {
  const { checkPoolSize, createDatabase } = await import('./db/create-db.ts');
  if (config.DATABASE_URL) checkPoolSize(config.DATABASE_POOL_SIZE);
  return config.DATABASE_URL
    ? createDatabase({
        kind: 'postgres',
        url: config.DATABASE_URL,
        ownerUrl: config.DATABASE_MIGRATION_URL,
        poolSize: config.DATABASE_POOL_SIZE,
      })
    : createDatabase({ kind: 'pglite', dataDir: path.resolve(config.SVC_DATA_DIR), thread: config.SVC_PGLITE_WORKER });
}

/** Files go to S3-compatible storage when S3_BUCKET is set, else to the disk (SVC_FILES_DIR, SVC_DATA_DIR/files). */
export async function storageFromConfig(config: Config): Promise<ObjectStorage> {
  if (config.S3_BUCKET) {
    const { S3ObjectStorage } = await import('./storage/s3-storage.ts');
    return new S3ObjectStorage({
      endpoint: config.S3_ENDPOINT,
      bucket: config.S3_BUCKET,
      region: config.S3_REGION,
      accessKeyId: config.S3_ACCESS_KEY_ID,
      secretAccessKey: config.S3_SECRET_ACCESS_KEY,
      forcePathStyle: config.S3_FORCE_PATH_STYLE,
      prefix: config.S3_PREFIX,
    });
  }
  const { DiskObjectStorage } = await import('./storage/disk-storage.ts');
  return new DiskObjectStorage(config.SVC_FILES_DIR ?? path.join(config.SVC_DATA_DIR, 'files'));
}

/** Request counters shared in Redis (REDIS_URL), else in this process. */
export async function limiterFromConfig(config: Config, log: Logger): Promise<RateLimiter> {
  if (!config.REDIS_URL) return new MemoryRateLimiter();
  const { RedisRateLimiter } = await import('./rate-limit/redis-limiter.ts');
  return new RedisRateLimiter({
    url: config.REDIS_URL,
    prefix: `${config.REDIS_KEY_PREFIX}rl:`,
    failClosed: config.SVC_RATE_LIMIT_FAIL_CLOSED,
    log,
  });
}

/** Shared caches in Redis (REDIS_URL), else in this process. */
export async function sharedCachesFromConfig(config: Config): Promise<SharedCaches> {
  const url = config.REDIS_URL;
  if (!url) return () => new MemorySharedCache();
  const { RedisSharedCache } = await import('./cache/redis-shared-cache.ts');
  return (prefix, onError) => new RedisSharedCache({ url, prefix: `${config.REDIS_KEY_PREFIX}${prefix}`, onError });
}

/** The outbox's sender over SMTP (SMTP_URL), or none: mails then wait in the outbox. */
export async function mailFromConfig(config: Config, database: Database, log: Logger) {
  if (!config.SMTP_URL) return null;
  const { startMailSender } = await import('./mail/smtp-sender.ts');
  return startMailSender({
    db: database.db,
    url: config.SMTP_URL,
    from: config.SMTP_FROM,
    log,
    pollMs: config.SVC_MAIL_POLL_MS,
  });
}

/** How the nodes tell each other of new stream versions: PostgreSQL's LISTEN/NOTIFY, or nothing (one node). */
export async function versionChannelFromConfig(database: Database, log: Logger): Promise<VersionChannel> {
  if (database.kind !== 'postgres') return singleNode;
  const { PgVersionChannel } = await import('./db/version-channel.ts');
  const channel = new PgVersionChannel(database.pool, log);
  await channel.start();
  return channel;
}

/** The log: EventStoreDB (EVENTSTORE_URL), or the SQL database's own table with the inline projectors in appends. */
export async function eventStoreFromConfig(
  config: Config,
  database: Database,
  inline: Projector[],
  context: ProjectionContext,
): Promise<EventStore> {
  if (config.EVENTSTORE_URL) {
    const { EsdbEventStore } = await import('./event-store/esdb-event-store.ts');
    return new EsdbEventStore(config.EVENTSTORE_URL, { prefix: config.EVENTSTORE_STREAM_PREFIX });
  }
  const { PgEventStore } = await import('./event-store/pg-event-store.ts');
  return new PgEventStore(database.db, inline, { context });
}
