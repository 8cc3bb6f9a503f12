import { z } from 'zod';
import { loadKeyring, type Keyring } from './kernel/crypto/keyring.ts';
import { readVapid, type Vapid } from './platform/push/vapid.ts';
import { RETENTION_MAX_DAYS, RETENTION_MIN_DAYS } from './kernel/retention.ts';
import { parseOriginList } from './platform/http/cors-origins.ts';

const bool = (d: boolean) =>
  z
    .enum(['true', 'false', '1', '0', ''])
    .optional()
    .transform((v) => (v === undefined || v === '' ? d : v === 'true' || v === '1'));

const days = () => z.coerce.number().int().min(RETENTION_MIN_DAYS).max(RETENTION_MAX_DAYS).optional();

const EnvSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(1989),
  HOST: z.string().default('0.0.0.0'),
  NODE_ENV: z.string().default('development'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  SVC_DATA_DIR: z.string().default('./.data'),
  /** The embedded database on a thread of its own beside the HTTP server (0: inside the server's thread). */
  SVC_PGLITE_WORKER: bool(true),
  DATABASE_URL: z.string().optional(),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).default(10),
  /** The owner role's connection (migrations, DDL, projection rebuilds); DATABASE_URL then names the serving role. */
  DATABASE_MIGRATION_URL: z.string().optional(),
  EVENTSTORE_URL: z.string().optional(),
  /** Put before every stream name in EventStoreDB, so several instances can share one server. */
  EVENTSTORE_STREAM_PREFIX: z.string().default(''),
  /** Full-text search in Typesense instead of PostgreSQL (both or neither, DESIGN §2). */
  TYPESENSE_URL: z.string().url('TYPESENSE_URL must be a URL such as http://127.0.0.1:8108').optional(),
  TYPESENSE_API_KEY: z.string().min(1).optional(),
  /** Put before every Typesense alias and collection name, so several instances can share one server. */
  TYPESENSE_PREFIX: z
    .string()
    .regex(/^[a-z0-9]{1,31}_$/, 'TYPESENSE_PREFIX is 2–32 characters: a-z and 0-9, ending with _')
    .default('svc_'),
  /** How often the leader makes sure every collection has its Typesense alias (indexed afresh when missing). */
  SVC_TYPESENSE_SWEEP_MS: z.coerce.number().int().min(1000).default(60_000),
  /**
   * Where inline projectors run: `inline` inside each append (PostgreSQL/PGlite only), `subscription` from a
   * checkpointed reader of the log (the only mode with EVENTSTORE_URL). Unset: inline, or subscription with EVENTSTORE_URL.
   */
  SVC_PROJECTION_MODE: z.enum(['inline', 'subscription']).optional(),
  /** In the subscription mode, how long a write waits for its events to be projected before it answers anyway. */
  SVC_PROJECTION_WAIT_MS: z.coerce.number().int().min(0).default(5000),
  /** In the subscription mode, how often the reader looks for events appended by other nodes. */
  SVC_SUBSCRIPTION_POLL_MS: z.coerce.number().int().min(10).default(100),
  REDIS_URL: z.string().optional(),
  JWT_SECRET: z.string().min(32, 'JWT_SECRET must be at least 32 characters').optional(),
  ACCESS_TOKEN_TTL_S: z.coerce.number().int().min(30).default(900),
  SVC_ADMIN_EMAIL: z.string().email().optional(),
  SVC_ADMIN_PASSWORD: z.string().optional(),
  SVC_SITE_ID: z.string().default('main'),
  SVC_SITE_NAME: z.string().default('Main site'),
  SVC_REQUIRE_SETUP_TOKEN: bool(false),
  SVC_SETUP_TOKEN: z.string().optional(),
  SVC_OBSERVABILITY_TOKEN: z.string().optional(),
  /** How long the log feed waits after an append on this node before it reads (a burst of writes: one read). */
  SVC_FEED_DEBOUNCE_MS: z.coerce.number().int().min(0).max(1000).default(20),
  /** The log feed's read while nothing was appended: another node's append it was not told of, a retry come due. */
  SVC_FEED_SWEEP_MS: z.coerce.number().int().min(100).default(30_000),
  /** The embedded database's vacuum and analyze (PGlite has no autovacuum): how often to look whether one is due; 0: never. */
  SVC_EMBEDDED_MAINTENANCE_MS: z.coerce.number().int().min(0).default(60_000),
  SVC_SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(0).default(10_000),
  ENCRYPTION_KEY: z.string().optional(),
  REDIS_KEY_PREFIX: z.string().default('svc:'),
  SVC_PUBLIC_URL: z.string().url().optional(),
  REFRESH_TOKEN_TTL_S: z.coerce.number().int().min(60).default(1_209_600),
  REFRESH_COOKIE_SAMESITE: z.enum(['strict', 'lax', 'none']).default('strict'),
  REFRESH_COOKIE_DOMAIN: z.string().optional(),
  REFRESH_COOKIE_SECURE: bool(true),
  /**
   * The origins (exact, or `https://*.example.com`) a browser may call every site from, and the only ones that may send
   * the refresh cookie (with SVC_CORS_CREDENTIALS); empty: none. Sites add their own for bearer calls (`cors.origins`).
   */
  SVC_CORS_ORIGINS: z
    .string()
    .optional()
    .superRefine((v, ctx) => {
      for (const problem of parseOriginList(v).problems) ctx.addIssue({ code: 'custom', message: problem });
    })
    .transform((v) => parseOriginList(v).patterns),
  /** Credentialed cross-origin calls (the refresh cookie) from the SVC_CORS_ORIGINS origins; off by default. */
  SVC_CORS_CREDENTIALS: bool(false),
  SVC_RATE_LIMIT_FAIL_CLOSED: bool(false),
  SVC_RATE_LIMIT_MAX: z.coerce.number().int().min(1).default(300),
  SVC_RATE_LIMIT_WINDOW_S: z.coerce.number().int().min(1).default(60),
  SVC_RATE_LIMIT_DISABLED: bool(false),
  SVC_LOGIN_MAX_PER_IP: z.coerce.number().int().min(1).default(30),
  SVC_LOGIN_MAX_FAILURES: z.coerce.number().int().min(1).default(10),
  SVC_RECOVERY_MAX_PER_IP: z.coerce.number().int().min(1).default(3),
  SVC_REGISTER_MAX_PER_IP: z.coerce.number().int().min(1).default(10),
  SVC_AFTER_ANSWER_MAX: z.coerce.number().int().min(1).default(200),
  SVC_TOTP_MAX_ATTEMPTS: z.coerce.number().int().min(1).default(5),
  SMTP_URL: z.string().url().optional(),
  SMTP_FROM: z.string().min(3).default('no-reply@localhost'),
  SVC_MAIL_POLL_MS: z.coerce.number().int().min(10).default(1000),
  SVC_SCHEDULER_INTERVAL_MS: z.coerce.number().int().min(0).default(30_000),
  SVC_PRESSURE_LIMITER_ENABLED: bool(true),
  SAMPLE_INTERVAL: z.coerce.number().int().min(5).default(250),
  MAX_EVENT_LOOP_DELAY: z
    .string()
    .default('1000')
    .transform((v, ctx) => {
      if (v === 'false' || v === '0') return 0;
      const n = Number(v);
      if (!Number.isFinite(n) || n < 0) ctx.addIssue({ code: 'custom', message: 'milliseconds, or false' });
      return n;
    }),
  MAX_EVENT_LOOP_UTILIZATION: z
    .string()
    .default('false')
    .transform((v, ctx) => {
      if (v === 'false' || v === '0') return 0;
      const n = Number(v);
      if (!(n > 0 && n <= 1)) ctx.addIssue({ code: 'custom', message: 'a fraction between 0 and 1, or false' });
      return n;
    }),
  RETRY_AFTER: z.coerce.number().int().min(1).default(5),
  EXCLUDED_PATHS: z
    .string()
    .default('/health,/metrics')
    .transform((v) =>
      v
        .split(',')
        .map((p) => p.trim())
        .filter(Boolean),
    ),
  METRICS_TOKEN: z.string().min(16).optional(),
  SVC_DEV_AUTH: bool(false),
  SVC_AUTH_CACHE_MS: z.coerce.number().int().min(0).max(60_000).default(2000),
  /**
   * Longest time a node trusts its memory of a site's schema and access versions without asking the database, in
   * case a NOTIFY from another node was lost (its own writes and live messages move them on at once). 0: always ask.
   */
  SVC_VERSION_CACHE_MS: z.coerce.number().int().min(0).max(60_000).default(5000),
  /** Server processes on this machine (node:cluster), PostgreSQL mode with Redis only; 1: no cluster. */
  SVC_WORKERS: z.coerce.number().int().min(1).max(64).default(1),
  SCIM_TOKEN: z.string().min(16).optional(),
  SVC_DELIVER_RATE_LIMIT: z.coerce.number().int().min(0).default(1200),
  SVC_NEGATIVE_CACHE_TTL: z.coerce.number().int().min(0).default(30),
  SVC_DELIVER_CACHE_TTL: z.coerce.number().int().min(0).default(60),
  /** Lets trusted issuers (and later outbound HTTP) reach private, loopback and link-local addresses. */
  SVC_ALLOW_PRIVATE_ISSUERS: bool(false),
  /** Lets outbound webhooks reach private, loopback and link-local addresses (development receivers). */
  SVC_WEBHOOK_ALLOW_PRIVATE: bool(false),
  /** How often one node sends the webhook deliveries that are due (0: never). */
  SVC_WEBHOOK_INTERVAL_MS: z.coerce.number().int().min(0).default(1000),
  /** Lets flows' `request` steps reach private, loopback and link-local addresses (development and tests only). */
  SVC_FLOW_ALLOW_PRIVATE: bool(false),
  /** How often one node runs the flow worker: due runs, sleeping runs that woke, retries and schedules (0: never). */
  SVC_FLOW_INTERVAL_MS: z.coerce.number().int().min(0).default(250),
  /** Runs of one site the flow worker advances at once (the others wait for the next round). */
  SVC_FLOW_SITE_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(4),
  /** Runs the flow worker takes from the due list in one round, and at most how many of them of one site. */
  SVC_FLOW_ROUND: z.coerce.number().int().min(1).max(10_000).default(200),
  SVC_FLOW_SITE_ROUND: z.coerce.number().int().min(1).max(10_000).default(50),
  /**
   * The budget of a root run (started by a person, a webhook, the schedule, or an event no flow caused), shared by
   * every run it causes (`trigger` steps, event runs of its writes): runs it may cause, steps and bytes of step
   * outputs the whole tree may record; and the runs one run may start.
   */
  SVC_FLOW_BUDGET_RUNS: z.coerce.number().int().min(0).max(1_000_000).default(100),
  SVC_FLOW_BUDGET_STEPS: z.coerce.number().int().min(1).max(10_000_000).default(5000),
  SVC_FLOW_BUDGET_BYTES: z.coerce.number().int().min(1).max(1_073_741_824).default(33_554_432),
  SVC_FLOW_BREADTH: z.coerce.number().int().min(0).max(500).default(25),
  /**
   * The budget of a site's root runs, whoever starts them (a person, an API key's loop, an outside caller): live runs
   * (running, due, sleeping) at most, and root runs started per minute (counted by the shared limiter, so across nodes
   * with Redis). Past either, a manual run, retry or webhook call answers 429 and an event's or schedule's root run is
   * recorded as refused.
   */
  SVC_FLOW_SITE_LIVE_RUNS: z.coerce.number().int().min(1).max(1_000_000).default(1000),
  SVC_FLOW_SITE_ROOTS_PER_MINUTE: z.coerce.number().int().min(1).max(1_000_000).default(600),
  /** The machine-translation provider behind POST /api/v1/tm/translate; unset: none (memory and glossary only). */
  /** Web Push (RFC 8292): the one key pair of the instance and its contact; all three or none (platform/push/vapid.ts). */
  VAPID_PUBLIC_KEY: z.string().optional(),
  VAPID_PRIVATE_KEY: z.string().optional(),
  VAPID_SUBJECT: z.string().optional(),
  /** Lets push endpoints be on private or loopback addresses (a push service of one's own; tests). */
  SVC_PUSH_ALLOW_PRIVATE: bool(false),
  /** A PEM file of certificate authorities trusted for push endpoints instead of the system's (a private service). */
  SVC_PUSH_CA_FILE: z.string().min(1).optional(),
  /** Bounds each push request, connect included. */
  SVC_PUSH_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
  /** Push requests in flight at once per fan-out. */
  SVC_PUSH_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(16),
  /** How often the realtime relay reads the log without being woken (appends wake it at once, on every node). */
  SVC_REALTIME_POLL_MS: z.coerce.number().int().min(20).max(60_000).default(1000),
  /** Realtime connections one node holds at most (each further one is answered 503). */
  SVC_REALTIME_MAX_CONNECTIONS: z.coerce.number().int().min(1).max(1_000_000).default(10_000),
  /** Realtime connections one user holds on one site of one node (tabs, devices); beyond, 409. */
  SVC_REALTIME_MAX_PER_USER: z.coerce.number().int().min(1).max(10_000).default(20),
  /** Log events a reconnection's replay reads at most; beyond, the client is told to reload (`reset`). */
  SVC_REALTIME_MAX_REPLAY: z.coerce.number().int().min(1).max(1_000_000).default(20_000),
  /** Live item subscriptions per connection. */
  SVC_REALTIME_MAX_SUBSCRIPTIONS: z.coerce.number().int().min(1).max(1000).default(20),
  SVC_TRANSLATE_PROVIDER: z.enum(['deepl', 'libretranslate']).optional(),
  /** The provider's base URL (DeepL: https://api.deepl.com or https://api-free.deepl.com; LibreTranslate: its server). */
  SVC_TRANSLATE_URL: z
    .string()
    .url()
    .refine((u) => /^https?:\/\//i.test(u), 'an http(s) URL')
    .optional(),
  /** The provider's key (DeepL: required; LibreTranslate: when the server asks for one). */
  SVC_TRANSLATE_API_KEY: z.string().min(1).optional(),
  /** Lets the provider be on a private, loopback or link-local address (a self-hosted LibreTranslate, tests). */
  SVC_TRANSLATE_ALLOW_PRIVATE: bool(false),
  /**
   * Lets a git integration's `baseUrl` be http or on a private, loopback or link-local address (a GitLab on the same
   * network, tests); its API is reached through the outbound helper either way.
   */
  SVC_GIT_ALLOW_PRIVATE: bool(false),
  /** Webhook deliveries the git receiver takes from one address per minute (429 beyond). */
  SVC_GIT_WEBHOOK_PER_MINUTE: z.coerce.number().int().min(1).max(1_000_000).default(1200),
  /** Live preview sites one integration may have; a pull request past it gets none (recorded as refused). */
  SVC_GIT_MAX_PREVIEWS: z.coerce.number().int().min(0).max(1000).default(10),
  /** How often the TTL cleanup of preview sites runs (one node at a time). */
  SVC_GIT_PREVIEW_SWEEP_MS: z.coerce.number().int().min(1000).max(86_400_000).default(600_000),
  /** The whole exchange with a git provider's API, connect included. */
  SVC_GIT_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(15_000),
  /** OAuth apps of the providers (GET /integrations/git/:id/oauth/authorize); unset: that provider offers no OAuth. */
  SVC_GIT_GITHUB_CLIENT_ID: z.string().min(1).max(200).optional(),
  /**
   * Where each OAuth app lives (its provider's web address): only integrations on that host are connected through it,
   * so the app's secret is never sent to an address a site chose.
   */
  SVC_GIT_GITHUB_OAUTH_URL: z.string().url().default('https://github.com'),
  SVC_GIT_GITLAB_OAUTH_URL: z.string().url().default('https://gitlab.com'),
  SVC_GIT_GITHUB_CLIENT_SECRET: z.string().min(1).max(500).optional(),
  SVC_GIT_GITLAB_CLIENT_ID: z.string().min(1).max(200).optional(),
  SVC_GIT_GITLAB_CLIENT_SECRET: z.string().min(1).max(500).optional(),
  /** The whole exchange with the provider, connect included. */
  SVC_TRANSLATE_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  /** Largest TMX document POST /api/v1/tm/import reads (bytes); a larger one is 413 TMX_TOO_LARGE. */
  SVC_TMX_MAX_BYTES: z.coerce.number().int().min(1024).default(10_485_760),
  /** Proxies in front of the service: a hop count, or a comma list of addresses/CIDRs; unset trusts none. */
  SVC_TRUST_PROXY: z.string().optional(),
  /** Whole request (headers and body) must arrive within this time; a trickling client is cut off. */
  SVC_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(1000).default(30_000),
  /** Headers must arrive within this time (at most SVC_REQUEST_TIMEOUT_MS). */
  SVC_HEADERS_TIMEOUT_MS: z.coerce.number().int().min(1000).default(15_000),
  /** An idle socket is closed after this time. */
  SVC_CONNECTION_TIMEOUT_MS: z.coerce.number().int().min(1000).default(60_000),
  SVC_KEEP_ALIVE_TIMEOUT_MS: z.coerce.number().int().min(1000).default(72_000),
  /** Largest request header block in bytes. */
  SVC_MAX_HEADER_BYTES: z.coerce.number().int().min(1024).max(1_048_576).default(16_384),
  /** The built studio (`index.html` and `assets/`), served at the admin path; relative to the working directory. */
  SVC_STUDIO_DIR: z.string().min(1).default('studio/dist'),
  /** Where files live on disk without S3 (default `SVC_DATA_DIR/files`). */
  SVC_FILES_DIR: z.string().optional(),
  /** Where uploads wait while the upload guard reads them (default: the system's temp folder). */
  SVC_UPLOAD_TMP_DIR: z.string().optional(),
  /** S3-compatible object storage for files; with S3_BUCKET set, files go there instead of the disk. */
  S3_ENDPOINT: z.string().url().optional(),
  S3_BUCKET: z.string().min(3).max(63).optional(),
  S3_REGION: z.string().default('us-east-1'),
  S3_ACCESS_KEY_ID: z.string().optional(),
  S3_SECRET_ACCESS_KEY: z.string().optional(),
  /** Bucket in the path instead of the host name; unset: on with S3_ENDPOINT, off for AWS. */
  S3_FORCE_PATH_STYLE: z
    .enum(['true', 'false', '1', '0'])
    .optional()
    .transform((v) => (v === undefined ? undefined : v === 'true' || v === '1')),
  /** Put before every object key, so several instances can share one bucket. */
  S3_PREFIX: z
    .string()
    .regex(/^([A-Za-z0-9_-][A-Za-z0-9._-]*\/)*$/, 'empty, or folders ending in /')
    .default(''),
  /** Image transforms running at once (each holds a decoded image), and waiting before 503 + Retry-After. */
  SVC_TRANSFORM_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(2),
  SVC_TRANSFORM_QUEUE: z.coerce.number().int().min(0).max(10_000).default(32),
  /** Originals with more pixels are not transformed (refused before their bytes are read). */
  SVC_TRANSFORM_MAX_PIXELS: z.coerce.number().int().min(1).default(50_000_000),
  /** Lets file imports (POST /api/v1/files/import) fetch from private, loopback and link-local addresses (tests only). */
  SVC_FILE_IMPORT_ALLOW_PRIVATE: bool(false),
  /** How long one file import may take, the whole exchange with the remote server (its body included). */
  SVC_FILE_IMPORT_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(30_000),
  /** How often one node removes the bytes of uploads that expired unregistered (0: never). */
  SVC_UPLOAD_SWEEP_MS: z.coerce.number().int().min(0).default(600_000),
  /** Derivatives one original may get from ad-hoc transform parameters (presets are not counted against it). */
  SVC_TRANSFORM_MAX_DERIVATIVES: z.coerce.number().int().min(1).max(100_000).default(100),
  /**
   * How often one node completes erasures that were cut short (an `ErasureStarted` without its proof, older than
   * this); 0: never (they complete when an admin asks again).
   */
  SVC_ERASURE_RESUME_MS: z.coerce.number().int().min(0).default(60_000),
  /** How often one node prunes every site's read-model rows past their retention horizons (0: never); a day. */
  SVC_RETENTION_INTERVAL_MS: z.coerce.number().int().min(0).default(86_400_000),
  /** Retention horizons in days for sites without a `retention` setting; unset: the documented defaults. */
  SVC_RETENTION_ACTIVITY_DAYS: days(),
  SVC_RETENTION_NOTIFICATIONS_DAYS: days(),
  SVC_RETENTION_SESSIONS_DAYS: days(),
  SVC_RETENTION_MAIL_OUTBOX_DAYS: days(),
  SVC_RETENTION_WEBHOOK_DELIVERIES_DAYS: days(),
  SVC_RETENTION_FLOW_RUNS_DAYS: days(),
  SVC_RETENTION_SAR_EXPORTS_DAYS: days(),
  /** The upload cap and allowlists when a site sets none (`upload_policy`); unset: the documented defaults. */
  FILE_UPLOAD_MAX_BYTES: z.coerce.number().int().min(1).optional(),
  FILE_UPLOAD_ALLOWED_MIME_TYPES: z.string().optional(),
  FILE_UPLOAD_ALLOWED_EXTENSIONS: z.string().optional(),
});

export type Config = z.infer<typeof EnvSchema> & { keyring: Keyring; vapid: Vapid | null };

/** Reads the environment once; a bad value stops the start with a message naming the variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const r = EnvSchema.safeParse(env);
  if (!r.success) {
    const lines = r.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new Error(`invalid configuration:\n${lines.join('\n')}`);
  }
  if (r.data.EVENTSTORE_URL && r.data.SVC_PROJECTION_MODE === 'inline')
    throw new Error(
      'invalid configuration:\n  SVC_PROJECTION_MODE: inline projectors need the SQL event store; unset it or use subscription with EVENTSTORE_URL',
    );
  if (r.data.SVC_WORKERS > 1 && (!r.data.DATABASE_URL || !r.data.REDIS_URL))
    throw new Error(
      'invalid configuration:\n  SVC_WORKERS: several processes need PostgreSQL (DATABASE_URL) and Redis (REDIS_URL), which they share: rate limits and delivery caches live there; the embedded database is one process',
    );
  if (r.data.SVC_WORKERS > 1 && r.data.SVC_REQUIRE_SETUP_TOKEN && !r.data.SVC_SETUP_TOKEN)
    throw new Error(
      'invalid configuration:\n  SVC_SETUP_TOKEN: with SVC_WORKERS > 1 and SVC_REQUIRE_SETUP_TOKEN, give the token: each process would make its own',
    );
  if (!r.data.TYPESENSE_URL !== !r.data.TYPESENSE_API_KEY)
    throw new Error(
      `invalid configuration:\n  ${r.data.TYPESENSE_URL ? 'TYPESENSE_API_KEY' : 'TYPESENSE_URL'}: Typesense needs both TYPESENSE_URL and TYPESENSE_API_KEY`,
    );
  const translation = translationProblem(r.data);
  if (translation) throw new Error(`invalid configuration:\n  ${translation}`);
  const { vapid, problem: vapidProblem } = readVapid(r.data);
  if (vapidProblem) throw new Error(`invalid configuration:\n  ${vapidProblem}`);
  if (r.data.SVC_CORS_CREDENTIALS && r.data.SVC_CORS_ORIGINS.length === 0)
    throw new Error(
      'invalid configuration:\n  SVC_CORS_CREDENTIALS: credentialed calls need the origins that may make them (SVC_CORS_ORIGINS)',
    );
  if (r.data.SVC_DEV_AUTH && r.data.NODE_ENV === 'production')
    throw new Error('invalid configuration:\n  SVC_DEV_AUTH: must be false when NODE_ENV=production');
  try {
    return { ...r.data, keyring: loadKeyring(env), vapid };
  } catch (err) {
    throw new Error(`invalid configuration:\n  ${(err as Error).message}`);
  }
}

/** What is wrong with the translation provider's settings, naming the variable, or null. */
function translationProblem(c: z.infer<typeof EnvSchema>): string | null {
  const provider = c.SVC_TRANSLATE_PROVIDER;
  if (!provider && (c.SVC_TRANSLATE_URL || c.SVC_TRANSLATE_API_KEY))
    return 'SVC_TRANSLATE_PROVIDER: set it to deepl or libretranslate, or unset SVC_TRANSLATE_URL and SVC_TRANSLATE_API_KEY';
  if (provider === 'deepl' && !c.SVC_TRANSLATE_API_KEY)
    return 'SVC_TRANSLATE_API_KEY: the DeepL provider needs an authentication key';
  if (provider === 'libretranslate' && !c.SVC_TRANSLATE_URL)
    return 'SVC_TRANSLATE_URL: the LibreTranslate provider needs the URL of its server';
  return null;
}
