import { appInstallationToken, mintsAppTokens } from './git.app-auth.ts';
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { AppDeps } from '../../deps.ts';
import { actorOf, siteOf, type Principal } from '../../kernel/http/access.ts';
import type { CommandContext } from '../../kernel/http/command-meta.ts';
import { outboundRequest, OutboundError } from '../../platform/net/outbound-http.ts';
import { findUserForToken } from '../../../projections/users/index.ts';
import { userActor } from '../auth/index.ts';
import { integrationOf, storeOAuthTokens } from './git.commands.ts';
import type { GitIntegrationState } from './git.decider.ts';
import { unseal } from '../../platform/privacy/pii.ts';
import { GitOAuthNeedsUser, GitOAuthNotConfigured, GitOAuthStateInvalid, GitProviderFailed } from './git.errors.ts';
import type { GitProvider } from '../../contracts/git/git.events.ts';

/** A state lives ten minutes and is used once. */
export const STATE_TTL_S = 600;
const CALLBACK_PATH = '/api/v1/integrations/git/oauth/callback';

type Deps = Pick<AppDeps, 'config' | 'tokens' | 'db' | 'store' | 'realtime' | 'authorizer' | 'clock'>;

/** The cookie that binds a flow to the browser that began it (and is PKCE's verifier). */
export const OAUTH_COOKIE = 'svc_git_oauth';
const COOKIE_PATH = '/api/v1/integrations/git/oauth/callback';

const trimmed = (url: string) => url.replace(/\/+$/, '');

/**
 * The provider's OAuth app for the integration's host, or 503: an app serves the one host it is registered on
 * (SVC_GIT_*_OAUTH_URL), so its secret never goes to an address a site admin chose as `baseUrl`.
 */
function oauthApp(config: AppDeps['config'], provider: GitProvider, baseUrl: string | null) {
  const github = provider === 'github';
  const id = github ? config.SVC_GIT_GITHUB_CLIENT_ID : config.SVC_GIT_GITLAB_CLIENT_ID;
  const secret = github ? config.SVC_GIT_GITHUB_CLIENT_SECRET : config.SVC_GIT_GITLAB_CLIENT_SECRET;
  const web = trimmed(github ? config.SVC_GIT_GITHUB_OAUTH_URL : config.SVC_GIT_GITLAB_OAUTH_URL);
  if (!id || !secret || webBase(provider, baseUrl) !== web) throw new GitOAuthNotConfigured({ provider });
  return { clientId: id, clientSecret: secret, web };
}

/** PKCE's S256 challenge of a verifier (also what the state keeps of the browser's cookie). */
const challengeOf = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

/**
 * The provider's web address (where people sign in): GitHub's public site, or a GitHub Enterprise `baseUrl`
 * without its `/api/v3`; GitLab's instance.
 */
function webBase(provider: GitProvider, baseUrl: string | null): string {
  const base = trimmed(baseUrl ?? (provider === 'github' ? 'https://github.com' : 'https://gitlab.com'));
  return provider === 'github' ? base.replace(/\/api\/v3$/, '') : base;
}

const callbackUrl = (config: AppDeps['config']) =>
  `${(config.SVC_PUBLIC_URL ?? `http://localhost:${config.PORT}`).replace(/\/+$/, '')}${CALLBACK_PATH}`;

/**
 * `GET /integrations/git/:id/oauth/authorize`: the provider's authorization address for a site admin. Its state is a
 * JWT of its own audience, ten minutes, used once, bound to the admin (their token version), the site, the
 * integration and the browser: a random verifier goes to the browser as an HttpOnly cookie for the callback's path
 * only, the state keeps its digest, and the provider gets it as PKCE's challenge.
 */
export async function authorizationUrl(
  deps: Deps,
  caller: Principal,
  integrationId: string,
): Promise<{ url: string; expiresAt: string; verifier: string; cookie: { path: string; secure: boolean } }> {
  const actor = actorOf(caller);
  if (actor.type !== 'user' || actor.impersonator) throw new GitOAuthNeedsUser({});
  const siteId = siteOf(caller);
  const integration = await integrationOf(deps, siteId, integrationId);
  const app = oauthApp(deps.config, integration.provider, integration.baseUrl);
  const verifier = randomBytes(32).toString('base64url');
  const challenge = challengeOf(verifier);
  const state = await deps.tokens.issuePurpose(
    'git-oauth-state',
    actor.id,
    { site: siteId, integration: integrationId, tv: actor.tokenVersion, pkce: challenge },
    STATE_TTL_S,
  );
  const query = new URLSearchParams({
    client_id: app.clientId,
    redirect_uri: callbackUrl(deps.config),
    state,
    code_challenge: challenge,
    code_challenge_method: 'S256',
  });
  if (integration.provider === 'github') query.set('scope', 'repo');
  else {
    query.set('response_type', 'code');
    query.set('scope', 'read_repository read_api');
  }
  const path = integration.provider === 'github' ? '/login/oauth/authorize' : '/oauth/authorize';
  return {
    url: `${app.web}${path}?${query.toString()}`,
    expiresAt: new Date(Date.now() + STATE_TTL_S * 1000).toISOString(),
    verifier,
    cookie: { path: COOKIE_PATH, secure: callbackUrl(deps.config).startsWith('https:') },
  };
}

/** The state's claims, or 400 GIT_OAUTH_STATE_INVALID. */
async function readState(deps: Deps, state: string) {
  if (state.length > 4096) throw new GitOAuthStateInvalid({ reason: 'invalid' });
  const claims = await deps.tokens.checkPurpose('git-oauth-state', state);
  if (claims === 'expired') throw new GitOAuthStateInvalid({ reason: 'expired' });
  if (
    claims === 'invalid' ||
    typeof claims.site !== 'string' ||
    typeof claims.integration !== 'string' ||
    typeof claims.tv !== 'number' ||
    typeof claims.pkce !== 'string'
  )
    throw new GitOAuthStateInvalid({ reason: 'invalid' });
  return {
    userId: claims.sub,
    siteId: claims.site,
    integrationId: claims.integration,
    tv: claims.tv,
    jti: claims.jti,
    challenge: claims.pkce,
  };
}

/** What a token endpoint gave: the access token, and for an expiring one its refresh token and lifetime. */
interface Granted {
  token: string;
  refreshToken: string | null;
  expiresInS: number | null;
}

/**
 * Asks the provider's token endpoint (of the app's own host, through the outbound helper) for tokens: a code's
 * exchange or a refresh. Anything but tokens is 502 GIT_PROVIDER_FAILED.
 */
async function tokenRequest(
  deps: Deps,
  provider: GitProvider,
  baseUrl: string | null,
  grant: Record<string, string>,
): Promise<Granted> {
  const app = oauthApp(deps.config, provider, baseUrl);
  const tokenUrl = `${app.web}${provider === 'github' ? '/login/oauth/access_token' : '/oauth/token'}`;
  const form = new URLSearchParams({ client_id: app.clientId, client_secret: app.clientSecret, ...grant });
  let text: string;
  let status: number;
  try {
    const res = await outboundRequest(tokenUrl, {
      method: 'POST',
      headers: { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' },
      body: form.toString(),
      allowPrivate: deps.config.SVC_GIT_ALLOW_PRIVATE,
      timeoutMs: deps.config.SVC_GIT_TIMEOUT_MS,
      maxBytes: 64 * 1024,
    });
    ({ text, status } = res);
  } catch (err) {
    if (err instanceof OutboundError) throw new GitProviderFailed({ reason: err.reason });
    throw err;
  }
  let body: Record<string, unknown> = {};
  try {
    const parsed = JSON.parse(text) as unknown;
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) body = parsed as Record<string, unknown>;
  } catch {
    // Not JSON: no token below.
  }
  const str = (key: string) => {
    const v = Object.hasOwn(body, key) ? body[key] : undefined;
    return typeof v === 'string' && v.length > 0 && v.length <= 4096 ? v : null;
  };
  const token = str('access_token');
  if (status !== 200 || !token) throw new GitProviderFailed({ reason: 'the provider gave no token' });
  const expires = Object.hasOwn(body, 'expires_in') ? body.expires_in : undefined;
  return {
    token,
    refreshToken: str('refresh_token'),
    expiresInS: typeof expires === 'number' && Number.isFinite(expires) && expires > 0 ? expires : null,
  };
}

const expiry = (now: Date, g: Granted) =>
  g.expiresInS === null ? null : new Date(now.getTime() + g.expiresInS * 1000).toISOString();

/** Renewed this long before an OAuth token expires. */
const REFRESH_MARGIN_MS = 5 * 60_000;

/**
 * The integration's token in clear, renewed first when it is an OAuth token about to expire (GitLab's live two
 * hours): the refresh token is exchanged at the app's host and the new tokens stored, under the system actor
 * `git-oauth`. A GitHub App's integration mints installation tokens instead (git.app-auth.ts). Null when the
 * integration has no token.
 */
export async function currentToken(
  deps: Deps,
  siteId: string,
  integration: NonNullable<GitIntegrationState>,
): Promise<string | null> {
  const ring = deps.config.keyring;
  const id = integration.integrationId;
  if (mintsAppTokens(integration)) return appInstallationToken(deps, integration);
  if (integration.token === null) return null;
  const now = deps.clock.now();
  const due = integration.tokenExpiresAt && Date.parse(integration.tokenExpiresAt) - REFRESH_MARGIN_MS <= now.getTime();
  const refreshToken =
    due && integration.refreshToken ? await unseal(deps.db, ring, id, integration.refreshToken) : null;
  if (!refreshToken) return unseal(deps.db, ring, id, integration.token);
  const granted = await tokenRequest(deps, integration.provider, integration.baseUrl, {
    grant_type: 'refresh_token',
    refresh_token: refreshToken,
  });
  const actor = { type: 'system' as const, id: 'git-oauth' };
  await storeOAuthTokens(
    deps,
    {
      siteId,
      actor,
      now,
      metadata: {
        siteId,
        actor,
        correlationId: `git-oauth-refresh:${id}`,
        causationId: null,
        requestId: null,
        occurredAt: now.toISOString(),
      },
    },
    id,
    { token: granted.token, refreshToken: granted.refreshToken ?? refreshToken, expiresAt: expiry(now, granted) },
  );
  return granted.token;
}

/**
 * The public callback: the state is checked (genuine, unexpired, from this browser: the cookie's verifier matches
 * it), its user must still be a site admin with the same token version, the integration must still exist, and the
 * state is consumed (once in the whole deployment) before the code is exchanged with PKCE's verifier. The token is
 * then stored sealed, in the user's name.
 */
export async function completeAuthorization(
  deps: Deps,
  ctx: Pick<CommandContext, 'now' | 'metadata'>,
  input: { state: string; code: string; verifier: string | undefined },
): Promise<{ integrationId: string; hasToken: boolean }> {
  const s = await readState(deps, input.state);
  // Another browser's state (a link an attacker sent) finds no cookie, or a verifier of another flow.
  const expected = Buffer.from(s.challenge);
  const given = Buffer.from(input.verifier ? challengeOf(input.verifier) : '');
  if (given.length !== expected.length || !timingSafeEqual(given, expected))
    throw new GitOAuthStateInvalid({ reason: 'browser' });
  const user = await findUserForToken(deps.db, s.userId, null);
  if (!user || user.tokenVersion !== s.tv) throw new GitOAuthStateInvalid({ reason: 'revoked' });
  const principal: Principal = {
    actor: userActor(user, { sessionId: null, amr: [] }),
    site: { id: s.siteId },
  };
  try {
    deps.authorizer.requireSiteAdmin(principal);
  } catch {
    throw new GitOAuthStateInvalid({ reason: 'revoked' });
  }
  const integration = await integrationOf(deps, s.siteId, s.integrationId);
  // Kept a little past the state's own life, so it cannot be used again before it expires.
  if (!(await deps.realtime.hub.claim(`git-oauth:${s.jti}`, (STATE_TTL_S + 60) * 1000)))
    throw new GitOAuthStateInvalid({ reason: 'used' });
  const granted = await tokenRequest(deps, integration.provider, integration.baseUrl, {
    code: input.code,
    redirect_uri: callbackUrl(deps.config),
    grant_type: 'authorization_code',
    code_verifier: input.verifier!,
  });
  const actor = { type: 'user' as const, id: s.userId };
  const record = await storeOAuthTokens(
    deps,
    { siteId: s.siteId, actor, now: ctx.now, metadata: { ...ctx.metadata, siteId: s.siteId, actor } },
    s.integrationId,
    { token: granted.token, refreshToken: granted.refreshToken, expiresAt: expiry(ctx.now, granted) },
  );
  return { integrationId: record.id, hasToken: record.hasToken };
}
