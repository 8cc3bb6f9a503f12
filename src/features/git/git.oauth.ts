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

/** The provider's OAuth app, or 503 when none is configured. */
function oauthApp(config: AppDeps['config'], provider: GitProvider) {
  const id = provider === 'github' ? config.SVC_GIT_GITHUB_CLIENT_ID : config.SVC_GIT_GITLAB_CLIENT_ID;
  const secret = provider === 'github' ? config.SVC_GIT_GITHUB_CLIENT_SECRET : config.SVC_GIT_GITLAB_CLIENT_SECRET;
  if (!id || !secret) throw new GitOAuthNotConfigured({ provider });
  return { clientId: id, clientSecret: secret };
}

/**
 * The provider's web address (where people sign in): GitHub's public site, or a GitHub Enterprise `baseUrl`
 * without its `/api/v3`; GitLab's instance.
 */
function webBase(provider: GitProvider, baseUrl: string | null): string {
  const base = (baseUrl ?? (provider === 'github' ? 'https://github.com' : 'https://gitlab.com')).replace(/\/+$/, '');
  return provider === 'github' ? base.replace(/\/api\/v3$/, '') : base;
}

const callbackUrl = (config: AppDeps['config']) =>
  `${(config.SVC_PUBLIC_URL ?? `http://localhost:${config.PORT}`).replace(/\/+$/, '')}${CALLBACK_PATH}`;

/**
 * `GET /integrations/git/:id/oauth/authorize`: the provider's authorization address for a site admin, with a state
 * bound to them (their token version), the site and the integration: a JWT of its own audience, ten minutes, used
 * once by the callback.
 */
export async function authorizationUrl(
  deps: Deps,
  caller: Principal,
  integrationId: string,
): Promise<{ url: string; expiresAt: string }> {
  const actor = actorOf(caller);
  if (actor.type !== 'user' || actor.impersonator) throw new GitOAuthNeedsUser({});
  const siteId = siteOf(caller);
  const integration = await integrationOf(deps, siteId, integrationId);
  const app = oauthApp(deps.config, integration.provider);
  const state = await deps.tokens.issuePurpose(
    'git-oauth-state',
    actor.id,
    { site: siteId, integration: integrationId, tv: actor.tokenVersion },
    STATE_TTL_S,
  );
  const web = webBase(integration.provider, integration.baseUrl);
  const query = new URLSearchParams({ client_id: app.clientId, redirect_uri: callbackUrl(deps.config), state });
  if (integration.provider === 'github') query.set('scope', 'repo');
  else {
    query.set('response_type', 'code');
    query.set('scope', 'read_repository read_api');
  }
  const path = integration.provider === 'github' ? '/login/oauth/authorize' : '/oauth/authorize';
  return {
    url: `${web}${path}?${query.toString()}`,
    expiresAt: new Date(Date.now() + STATE_TTL_S * 1000).toISOString(),
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
    typeof claims.tv !== 'number'
  )
    throw new GitOAuthStateInvalid({ reason: 'invalid' });
  return { userId: claims.sub, siteId: claims.site, integrationId: claims.integration, tv: claims.tv, jti: claims.jti };
}

/** The provider's answer to the code: an access token, or 502 GIT_PROVIDER_FAILED. */
async function exchange(deps: Deps, provider: GitProvider, baseUrl: string | null, code: string): Promise<string> {
  const app = oauthApp(deps.config, provider);
  const tokenUrl = `${webBase(provider, baseUrl)}${provider === 'github' ? '/login/oauth/access_token' : '/oauth/token'}`;
  const form = new URLSearchParams({
    client_id: app.clientId,
    client_secret: app.clientSecret,
    code,
    redirect_uri: callbackUrl(deps.config),
    grant_type: 'authorization_code',
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
 * The public callback: the state is checked (genuine, unexpired), its user must still be a site admin with the
 * same token version, the integration must still exist, and the state is consumed (once in the whole deployment)
 * before the code is exchanged. The token is then stored sealed, in the user's name.
 */
export async function completeAuthorization(
  deps: Deps,
  ctx: Pick<CommandContext, 'now' | 'metadata'>,
  input: { state: string; code: string },
): Promise<{ integrationId: string; hasToken: boolean }> {
  const s = await readState(deps, input.state);
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
  const token = await exchange(deps, integration.provider, integration.baseUrl, input.code);
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
