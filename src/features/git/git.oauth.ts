import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { AppDeps } from '../../deps.ts';
import { actorOf, siteOf, type Principal } from '../../kernel/http/access.ts';
import type { CommandContext } from '../../kernel/http/command-meta.ts';
import { outboundRequest, OutboundError } from '../../kernel/net/outbound-http.ts';
import { findUserForToken } from '../../../projections/users/index.ts';
import { userActor } from '../auth/index.ts';
import { integrationOf, updateIntegration } from './git.commands.ts';
import { GitOAuthNeedsUser, GitOAuthNotConfigured, GitOAuthStateInvalid, GitProviderFailed } from './git.errors.ts';
import type { GitProvider } from './git.events.ts';

/** A state lives ten minutes and is used once. */
export const STATE_TTL_S = 600;
const CALLBACK_PATH = '/api/v1/integrations/git/oauth/callback';

type Deps = Pick<AppDeps, 'config' | 'tokens' | 'db' | 'store' | 'realtime' | 'authorizer'>;

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

/** The provider's answer to the code: an access token, or 502 GIT_PROVIDER_FAILED. */
async function exchange(
  deps: Deps,
  provider: GitProvider,
  baseUrl: string | null,
  code: string,
  verifier: string,
): Promise<string> {
  const app = oauthApp(deps.config, provider, baseUrl);
  const tokenUrl = `${app.web}${provider === 'github' ? '/login/oauth/access_token' : '/oauth/token'}`;
  const form = new URLSearchParams({
    client_id: app.clientId,
    client_secret: app.clientSecret,
    code,
    redirect_uri: callbackUrl(deps.config),
    grant_type: 'authorization_code',
    code_verifier: verifier,
  });
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
  let body: unknown;
  try {
    body = JSON.parse(text) as unknown;
  } catch {
    body = null;
  }
  const token =
    body && typeof body === 'object' && 'access_token' in body && typeof body.access_token === 'string'
      ? body.access_token
      : null;
  if (status !== 200 || !token || token.length > 4096)
    throw new GitProviderFailed({ reason: 'the provider did not exchange the code' });
  return token;
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
  const token = await exchange(deps, integration.provider, integration.baseUrl, input.code, input.verifier!);
  const actor = { type: 'user' as const, id: s.userId };
  const record = await updateIntegration(
    deps,
    {
      siteId: s.siteId,
      actor,
      now: ctx.now,
      metadata: { ...ctx.metadata, siteId: s.siteId, actor },
    },
    s.integrationId,
    { token },
  );
  return { integrationId: record.id, hasToken: record.hasToken };
}
