import type { Kysely } from 'kysely';
import type { FastifyPluginAsync } from 'fastify';
import type { Config } from './config.ts';
import type { Clock } from './kernel/clock.ts';
import type { Database } from './kernel/db/database.ts';
import type { DB } from './kernel/db/database.ts';
import type { EventStore } from './kernel/es/event-store.ts';
import type { ProjectionEngine } from './platform/es/projection-engine.ts';
import type { Projector } from './kernel/es/projector.ts';
import type { Reactor } from './kernel/es/reactor.ts';
import type { TokenService } from './features/auth/tokens.ts';
import type { ItemsApi } from './features/items/index.ts';
import type { AddressHasher } from './contracts/auth/address-hash.ts';
import type { Authenticator } from './kernel/auth/actor.ts';
import type { Authorizer } from './kernel/auth/authorizer.ts';
import type { SchemaReader } from '../projections/schema/index.ts';
import type { RateLimiter } from './kernel/rate-limit/limiter.ts';
import type { RetentionKind } from './kernel/retention.ts';
import type { ObjectStorage } from './kernel/storage/object-storage.ts';
import type { SharedCaches } from './kernel/cache/shared-cache.ts';
import type { PersonalDataPart } from './platform/privacy/personal-data.ts';
import type { RealtimeHub } from './platform/realtime/hub.ts';
import type { FrameSource, Relay } from './platform/realtime/relay.ts';
import type { AfterAnswer } from './kernel/after-answer.ts';
import type { LoopSpec } from './platform/leader-loop.ts';

/** Everything a feature needs, handed to its routes as plugin options. */
export interface AppDeps {
  config: Config;
  database: Database;
  db: Kysely<DB>;
  store: EventStore;
  engine: ProjectionEngine;
  clock: Clock;
  tokens: TokenService;
  /** Keyed hashes of email addresses (claim streams, limiter keys), under the instance's `email_hash_key`. */
  addresses: AddressHasher;
  /** The one answer to "may this principal do this" (the site's access model), for every slice. */
  authorizer: Authorizer;
  /** The item engine (reads, writes, checks of items) for every slice that serves or writes items. */
  items: ItemsApi;
  /** Each site's schema, cached by schema version: the one way slices read it. */
  schemas: SchemaReader;
  /** Files' bytes: the disk under SVC_DATA_DIR/files, or S3-compatible object storage (S3_*). */
  storage: ObjectStorage;
  /** Caches shared by the nodes (Redis with REDIS_URL, else in-process): open one per use, close it with the app. */
  sharedCache: SharedCaches;
  /** Counts requests per key (in-process, or shared in Redis). */
  limiter: RateLimiter;
  /** This node's realtime rooms (`hub`) and the relay that feeds them from the log. */
  realtime: { hub: RealtimeHub; relay: Relay };
  /** The token POST /setup/complete needs when SVC_REQUIRE_SETUP_TOKEN is on. */
  setupToken: string | null;
  /** Runs the async projectors to the head of the log (tests, admin). */
  drainAsync(): Promise<void>;
  /** Runs the reactors (all, or the named one) over every event committed before the call, as their leader. */
  drainReactors(name?: string): Promise<void>;
  /**
   * The answer to a session that lacks the second factor a policy requires (a fresh challenge, or "enroll"): the
   * access slice decides that it is needed, the auth slice how to ask for it.
   */
  stepUp(userId: string): Promise<Error>;
  /** Work a request starts after its answer (bounded, awaited at shutdown): its cost must not show in the answer. */
  afterAnswer: AfterAnswer;
  /** Delivers the outbox over SMTP now (SMTP_URL set); the number of mails tried. 0 without SMTP. */
  flushMail(): Promise<number>;
  /** What every feature keeps for a limited time (`Feature.retention`), gathered by the composition root. */
  retentionKinds(): RetentionKind[];
  /** Every slice's part of a subject's personal-data export (`Feature.personalData`), in the features' order. */
  personalData(): PersonalDataPart[];
}

/** A vertical slice: its read models, its routes and its process managers. */
export interface Feature {
  name: string;
  projectors: Projector[];
  routes: FastifyPluginAsync<AppDeps>;
  /**
   * Its process managers: `(event, state) → commands`, run on the checkpointed log by one node at a time (leader
   * lock), at least once per event, so their commands are idempotent.
   */
  reactors?: (deps: AppDeps) => Reactor[];
  /** The events it sends to realtime clients, and the frame of each (the realtime slice decides who gets one). */
  frames?: FrameSource[];
  /** Ways this feature recognises bearer tokens (API keys, external issuers, access tokens). */
  authenticators?: (deps: AppDeps) => Authenticator[];
  /** Periodic work run by one node at a time (leader lock): time turned into commands, e.g. the content scheduler. */
  loops?: (deps: AppDeps) => LoopSpec[];
  /** Read-model rows it keeps for a limited time, and how to prune them (the retention slice runs them). */
  retention?: (deps: AppDeps) => RetentionKind[];
  /**
   * Its share of a subject's personal data (GDPR art. 15/20: GET /me/data-export, POST /admin/sar): one part per
   * kind of record the slice keeps about a person, each written under that record's site.
   */
  personalData?: (deps: AppDeps) => PersonalDataPart[];
}
