import { createHash, createPrivateKey } from 'node:crypto';
import { SignJWT } from 'jose';
import type { AppDeps } from '../../deps.ts';
import { unseal } from '../../platform/privacy/pii.ts';
import type { GitIntegrationState } from './git.decider.ts';
import { githubInstallationToken } from './providers/index.ts';

type Deps = Pick<AppDeps, 'db' | 'config' | 'clock'>;
type Integration = NonNullable<GitIntegrationState>;

/** A token is used until this long before it expires (GitHub's live an hour). */
const RENEW_MARGIN_MS = 5 * 60_000;

interface Minted {
  /** What the token was minted for: the app, its key and the host; a change of any asks for a new one. */
  key: string;
  token: string;
  expiresAt: number;
}

/** Installation tokens per database handle (one per deployment's node) and integration, held in memory only. */
const minted = new WeakMap<object, Map<string, Minted>>();

/** Whether the integration acts as a GitHub App whose installation tokens the service mints. */
export const mintsAppTokens = (i: Integration): boolean =>
  i.provider === 'github' && i.authMethod === 'app' && !!i.app && !!i.appKey;

/**
 * An installation token of the integration's GitHub App: the app's JWT (RS256 under its private key, issued a
 * minute back for clock drift, ten minutes of life: GitHub's rules) asks the provider, through the outbound helper,
 * for a token limited to the integration's repository. Tokens are kept in memory until five minutes before they
 * expire, never in the log. Null once the integration's key is shredded.
 */
export async function appInstallationToken(deps: Deps, integration: Integration): Promise<string | null> {
  const { app, appKey } = integration;
  if (!app || !appKey) return null;
  const id = integration.integrationId;
  const key = createHash('sha256')
    .update(JSON.stringify([app.appId, app.installationId, appKey, integration.baseUrl, integration.repository]))
    .digest('base64url');
  let byIntegration = minted.get(deps.db);
  if (!byIntegration) minted.set(deps.db, (byIntegration = new Map()));
  const now = deps.clock.now().getTime();
  const held = byIntegration.get(id);
  if (held && held.key === key && held.expiresAt - RENEW_MARGIN_MS > now) return held.token;
  const pem = await unseal(deps.db, deps.config.keyring, id, appKey);
  if (pem === null) return null;
  const seconds = Math.floor(now / 1000);
  const jwt = await new SignJWT({})
    .setProtectedHeader({ alg: 'RS256', typ: 'JWT' })
    .setIssuer(app.appId)
    .setIssuedAt(seconds - 60)
    .setExpirationTime(seconds + 540)
    .sign(createPrivateKey(pem));
  const granted = await githubInstallationToken(
    {
      repository: integration.repository,
      baseUrl: integration.baseUrl,
      token: jwt,
      allowPrivate: deps.config.SVC_GIT_ALLOW_PRIVATE,
      timeoutMs: deps.config.SVC_GIT_TIMEOUT_MS,
    },
    app.installationId,
  );
  const expiresAt = Date.parse(granted.expiresAt);
  byIntegration.set(id, { key, token: granted.token, expiresAt: Number.isNaN(expiresAt) ? now : expiresAt });
  return granted.token;
}
