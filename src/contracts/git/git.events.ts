import { createHash } from 'node:crypto';
import type { DomainEvent } from '../../kernel/es/event.ts';
import type { Sealed } from '../../platform/privacy/pii.ts';
import type { CiRunSeen, CiSource, PullRequestSeen } from './git.observations.ts';

export const GIT_PROVIDERS = ['github', 'gitlab'] as const;
export type GitProvider = (typeof GIT_PROVIDERS)[number];
export type GitAuthMethod = 'app' | 'pat';

/** How the integration follows the repository (spec: `sync_config`). */
export interface SyncConfig {
  /** A pull request gets a preview site. */
  preview: boolean;
  /** The branch intents are read from. */
  branch: string;
  /** Where the intent files lie in the repository. */
  intentsPath: string;
  /** Previews older than this are removed. */
  previewTtlHours: number;
}

/**
 * A GitHub App's installation the integration acts as (`authMethod: app`): installation tokens are minted from the
 * app's private key (sealed beside it as `appKey`) when needed.
 */
export interface GitHubApp {
  appId: string;
  installationId: string;
}

/** What an integration is, its secrets apart. */
export interface GitIntegrationDefinition {
  provider: GitProvider;
  repository: string;
  /** GitHub Enterprise or a self-hosted GitLab; null: the provider's public service. */
  baseUrl: string | null;
  authMethod: GitAuthMethod;
  syncConfig: SyncConfig;
  /** Absent in integrations made before apps could be given. */
  app?: GitHubApp | null;
}

/** An integration was made; its token and webhook secret are sealed under the integration's own key. */
export type GitIntegrationCreated = DomainEvent<
  'GitIntegrationCreated',
  GitIntegrationDefinition & {
    integrationId: string;
    token: Sealed | null;
    webhookSecret: Sealed;
    /** The GitHub App's private key (PEM), sealed. */
    appKey?: Sealed | null;
    at: string;
    by: string;
  }
>;
/** Some settings changed (only those given); a new token or secret replaces the old one. */
export type GitIntegrationUpdated = DomainEvent<
  'GitIntegrationUpdated',
  {
    integrationId: string;
    changes: Partial<GitIntegrationDefinition> & {
      token?: Sealed | null;
      webhookSecret?: Sealed;
      appKey?: Sealed | null;
      /** An OAuth token's refresh token (sealed), and when the token expires; null: a token that does not. */
      refreshToken?: Sealed | null;
      tokenExpiresAt?: string | null;
    };
    at: string;
    by: string;
  }
>;
/** The integration is gone; its key is shredded, so its sealed secrets cannot be opened again. */
export type GitIntegrationDeleted = DomainEvent<
  'GitIntegrationDeleted',
  { integrationId: string; at: string; by: string }
>;

/**
 * A verified webhook delivery, as the provider sent it: one stream per provider and delivery id, so a redelivery
 * is recognised and recorded once. Processed later, off the request.
 */
export type GitDeliveryReceived = DomainEvent<
  'GitDeliveryReceived',
  {
    integrationId: string;
    provider: GitProvider;
    /**
     * What makes a delivery the same one: GitHub's, a digest of the signed body (a replay under another delivery id
     * is the same delivery); GitLab's, of its `Idempotency-Key` (or event id).
     */
    key: string;
    deliveryId: string;
    /** `X-GitHub-Event` / `X-Gitlab-Event`. */
    event: string;
    /**
     * The payload as JSON text, sealed under the integration's key: it can name people (senders, commit authors),
     * and deleting the integration makes every payload it received unreadable.
     */
    payload: Sealed;
    at: string;
  }
>;

export type GitIntegrationEvent = GitIntegrationCreated | GitIntegrationUpdated | GitIntegrationDeleted;
export const GIT_INTEGRATION_EVENT_TYPES = [
  'GitIntegrationCreated',
  'GitIntegrationUpdated',
  'GitIntegrationDeleted',
] as const;

export const gitIntegrationStream = (siteId: string, integrationId: string) =>
  `${siteId}/git-integration/${integrationId}`;

/** A delivery's key (see `GitDeliveryReceived`): a digest, since what it is made of is the provider's. */
export const deliveryKey = (what: Buffer | string) =>
  createHash('sha256').update(what).digest('base64url').slice(0, 32);

/** One stream per integration and delivery key. */
export const gitDeliveryStream = (siteId: string, integrationId: string, key: string) =>
  `${siteId}/git-delivery/${integrationId}-${key}`;

/**
 * A pull request (merge request) as a delivery showed it. Only what the API shows is kept: no author, no
 * description, since the delivery's payload, which names people, stays sealed.
 */
export type GitPullRequestObserved = DomainEvent<
  'GitPullRequestObserved',
  Omit<PullRequestSeen, 'kind'> & { integrationId: string; deliveryKey: string; at: string }
>;
/** A CI run's state as a delivery showed it. */
export type GitCiRunObserved = DomainEvent<
  'GitCiRunObserved',
  Omit<CiRunSeen, 'kind'> & { integrationId: string; deliveryKey: string; at: string }
>;
/**
 * A CI run failed (spec audit event `git_ci_failed`): appended with the observation that saw it fail, and answered
 * by an incident notification to the site's admins, critical when the run is for the integration's branch.
 */
export type GitCiFailed = DomainEvent<
  'git_ci_failed',
  {
    integrationId: string;
    source: CiSource;
    runId: string;
    name: string;
    sha: string;
    ref: string | null;
    url: string | null;
    severity: 'warning' | 'critical';
    at: string;
  }
>;
export type GitActivityEvent = GitPullRequestObserved | GitCiRunObserved | GitCiFailed;
export const GIT_ACTIVITY_EVENT_TYPES = ['GitPullRequestObserved', 'GitCiRunObserved', 'git_ci_failed'] as const;

/** One stream per pull request of an integration. */
export const gitPullRequestStream = (siteId: string, integrationId: string, number: number) =>
  `${siteId}/git-pr/${integrationId}-${String(number)}`;
/** One stream per CI run of an integration (the run's id is the provider's, so it is digested). */
export const gitCiStream = (siteId: string, integrationId: string, source: CiSource, runId: string) =>
  `${siteId}/git-ci/${integrationId}-${deliveryKey(`${source}:${runId}`)}`;

/**
 * What the repository declares of one item, as of a commit (a content intent): recorded when it is new or its values
 * changed, so the intent's history is its stream's.
 */
export type GitContentIntentSet = DomainEvent<
  'GitContentIntentSet',
  {
    integrationId: string;
    collection: string;
    itemId: string;
    path: string;
    sha: string;
    values: Record<string, unknown>;
    at: string;
  }
>;
/** The repository no longer declares the item (its live item is left as it is, and reported as extra). */
export type GitContentIntentRemoved = DomainEvent<
  'GitContentIntentRemoved',
  { integrationId: string; collection: string; itemId: string; sha: string; at: string }
>;

/** An intent the reconcile applied: the item was created or these fields of it were set. */
export interface AppliedIntent {
  path: string;
  collection: string;
  itemId: string;
  action: 'created' | 'updated';
  fields: string[];
}
/** An intent the item commands refused (a value the collection's rules refuse, the caller's rights). */
export interface RefusedIntent {
  path: string;
  collection: string;
  itemId: string;
  code: string;
  message: string;
}

/** A gitops sync ran at a commit: what it found drifted and what it applied (provenance follows from it). */
export type GitopsSynced = DomainEvent<
  'GitopsSynced',
  {
    integrationId: string;
    sha: string;
    branch: string;
    files: number;
    intents: number;
    drift: { missing: number; different: number; extra: number; inSync: number };
    applied: AppliedIntent[];
    refused: RefusedIntent[];
    /** What the configuration manifest changed (absent before manifests were read, null without one). */
    config?: { path: string; created: number; updated: number; deleted: number } | null;
    at: string;
    by: string;
  }
>;
export type GitopsEvent = GitContentIntentSet | GitContentIntentRemoved | GitopsSynced;
export const GITOPS_EVENT_TYPES = ['GitContentIntentSet', 'GitContentIntentRemoved', 'GitopsSynced'] as const;

/** One stream per item an integration declares. */
export const gitIntentStream = (siteId: string, integrationId: string, collection: string, itemId: string) =>
  `${siteId}/git-intent/${integrationId}-${deliveryKey(`${collection}/${itemId}`)}`;
/** One stream per integration's syncs. */
export const gitSyncStream = (siteId: string, integrationId: string) => `${siteId}/git-sync/${integrationId}`;

/** Why a preview site ended. */
export type PreviewEnd = 'closed' | 'merged' | 'expired' | 'integration_deleted' | 'interrupted';

/** A preview site is being made for a pull request: its id is taken, its seed not complete yet. */
export type GitPreviewProvisioning = DomainEvent<
  'GitPreviewProvisioning',
  { integrationId: string; number: number; previewSiteId: string; generation: number; at: string }
>;
/** The preview site is seeded (a copy of the base site's streams) and the branch's intents applied. */
export type GitPreviewProvisioned = DomainEvent<
  'GitPreviewProvisioned',
  {
    integrationId: string;
    number: number;
    previewSiteId: string;
    headSha: string;
    /** Events copied from the base site (schema, roles, items, pages). */
    copied: number;
    intents: PreviewIntents;
    at: string;
  }
>;
/** The pull request got new commits: the branch's intents were applied to the preview again. */
export type GitPreviewRefreshed = DomainEvent<
  'GitPreviewRefreshed',
  { integrationId: string; number: number; previewSiteId: string; headSha: string; intents: PreviewIntents; at: string }
>;
/** The preview site was deleted (its read models emptied by the site's deletion). */
export type GitPreviewTornDown = DomainEvent<
  'GitPreviewTornDown',
  { integrationId: string; number: number; previewSiteId: string; reason: PreviewEnd; at: string }
>;
/** No preview could be made (the base site's id leaves no room for a preview's). */
export type GitPreviewRefused = DomainEvent<
  'GitPreviewRefused',
  { integrationId: string; number: number; reason: string; at: string }
>;
/** What applying the branch's intents to a preview gave: counts, or why it could not run. */
export interface PreviewIntents {
  applied: number;
  refused: number;
  /** The error code when the intents could not be read (no token, provider down, invalid files). */
  error: string | null;
}
export type GitPreviewEvent =
  GitPreviewProvisioning | GitPreviewProvisioned | GitPreviewRefreshed | GitPreviewTornDown | GitPreviewRefused;
export const GIT_PREVIEW_EVENT_TYPES = [
  'GitPreviewProvisioning',
  'GitPreviewProvisioned',
  'GitPreviewRefreshed',
  'GitPreviewTornDown',
  'GitPreviewRefused',
] as const;

/** One stream per pull request's previews, on the base site. */
export const gitPreviewStream = (siteId: string, integrationId: string, number: number) =>
  `${siteId}/git-preview/${integrationId}-${String(number)}`;
