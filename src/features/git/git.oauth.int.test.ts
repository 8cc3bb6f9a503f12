import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGitProvider, type GitProviderServer } from '../../../test/support/git-provider.ts';
import { createTestApp, type TestApp } from '../../../test/setup/app.ts';
import { apiClient, firstError } from '../../../test/setup/api.ts';
import { createUser } from '../../../test/setup/users.ts';

/** Site main: its admin, a second admin, an editor; site other: its own admin. OAuth apps for both providers. */
let t: TestApp;
let admin: string;
let admin2: string;
let editor: string;
let otherAdmin: string;
let provider: GitProviderServer;
const { call, ok } = apiClient(
  () => t,
  () => admin,
);
const PASS = 'Git-oauth-pass-1!';
const SECRET = 'a-webhook-secret-of-forty-characters-long';
const BASE = '/api/v1/integrations/git';
const PUBLIC = 'https://cms.example.com';
const REDIRECT = `${PUBLIC}/api/v1/integrations/git/oauth/callback`;
const APPS = {
  github: { id: 'gh-client-id', secret: 'gh-client-secret' },
  gitlab: { id: 'gl-client-id', secret: 'gl-client-secret' },
};
let hub: string;
let lab: string;
/** The service's clock runs this far ahead of the real one (a token's expiry, without waiting for it). */
let skewMs = 0;

beforeAll(async () => {
  provider = await startGitProvider({ token: 'initial-token' });
  t = await createTestApp({
    clock: { now: () => new Date(Date.now() + skewMs) },
    env: {
      SVC_PUBLIC_URL: PUBLIC,
      SVC_GIT_ALLOW_PRIVATE: 'true',
      SVC_GIT_GITHUB_CLIENT_ID: APPS.github.id,
      SVC_GIT_GITHUB_CLIENT_SECRET: APPS.github.secret,
      SVC_GIT_GITLAB_CLIENT_ID: APPS.gitlab.id,
      SVC_GIT_GITLAB_CLIENT_SECRET: APPS.gitlab.secret,
      SVC_GIT_GITHUB_OAUTH_URL: provider.url,
      SVC_GIT_GITLAB_OAUTH_URL: provider.url,
    },
  });
  admin = await t.setup();
  await ok('POST', '/api/v1/sites', { id: 'other', name: 'Other' });
  admin2 = await createUser(t, 'a2@example.com', PASS, { main: 'admin' });
  editor = await createUser(t, 'ed@example.com', PASS, { main: 'editor' });
  otherAdmin = await createUser(t, 'oa@example.com', PASS, { other: 'admin' });
  const make = async (p: 'github' | 'gitlab') =>
    (
      await ok('POST', BASE, {
        provider: p,
        repository: provider.repository,
        baseUrl: p === 'github' ? provider.githubApi : provider.url,
        authMethod: 'app',
        webhookSecret: SECRET,
      })
    ).id as string;
  hub = await make('github');
  lab = await make('gitlab');
}, 60_000);
afterAll(async () => {
  await t.close();
  await provider.close();
});

/** The authorization address, and the cookie that binds the flow to this browser. */
const begin = async (id: string, as = admin) => {
  const res = await call('GET', `${BASE}/${id}/oauth/authorize`, undefined, { as });
  expect(res.statusCode, res.body).toBe(200);
  const set = [res.headers['set-cookie'] ?? []].flat().find((c) => c.startsWith('svc_git_oauth='))!;
  expect(set).toMatch(/HttpOnly/i);
  expect(set).toMatch(/Path=\/api\/v1\/integrations\/git\/oauth\/callback/);
  return { url: new URL(res.json().data.url as string), cookie: set.split(';')[0]! };
};
/** The provider sends the browser back: with the flow's cookie when it is the same browser. */
const callback = (query: Record<string, string>, cookie?: string) =>
  t.call({
    method: 'GET',
    url: `${BASE}/oauth/callback?${new URLSearchParams(query).toString()}`,
    ...(cookie ? { headers: { cookie } } : {}),
  });

describe('connecting a repository through OAuth', () => {
  it('gives the provider’s authorization address and stores the exchanged token sealed (GitHub)', async () => {
    const { url, cookie } = await begin(hub);
    expect(`${url.origin}${url.pathname}`).toBe(`${provider.url}/login/oauth/authorize`);
    expect(url.searchParams.get('client_id')).toBe(APPS.github.id);
    expect(url.searchParams.get('redirect_uri')).toBe(REDIRECT);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    const state = url.searchParams.get('state')!;
    provider.oauth.allow({
      code: 'gh-code-1',
      clientId: APPS.github.id,
      clientSecret: APPS.github.secret,
      redirectUri: REDIRECT,
      accessToken: 'gho_exchanged_token',
    });
    const res = await callback({ code: 'gh-code-1', state }, cookie);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toEqual({ integrationId: hub, hasToken: true });
    // PKCE: the verifier (the cookie's value) went with the code.
    const verifier = cookie.split('=')[1]!;
    expect(provider.oauth.exchanges.at(-1)!.params.code_verifier).toBe(verifier);
    expect((await ok('GET', `${BASE}/${hub}`)).hasToken).toBe(true);
    expect(provider.oauth.exchanges.at(-1)).toMatchObject({ provider: 'github', outcome: 'granted' });
    // The token works: a sync reaches the repository with it.
    await provider.repo.commit('main', { 'content/a.json': '[]' });
    const report = await call('POST', `${BASE}/${hub}/gitops/sync`, { dryRun: true });
    expect(report.statusCode, report.body).toBe(200);
    expect(provider.requests.at(-1)!.auth).toContain('gho_exchanged_token');
    // Nowhere readable: not in answers, not in the audit log.
    const audit = await call('GET', '/api/v1/audit?limit=50');
    expect(audit.body).not.toContain('gho_exchanged_token');
    // The state was used: again, it is refused, and nothing is exchanged.
    const exchanges = provider.oauth.exchanges.length;
    const again = await callback({ code: 'gh-code-1', state }, cookie);
    expect(again.statusCode).toBe(400);
    expect(firstError(again.body)).toMatchObject({ code: 'GIT_OAUTH_STATE_INVALID', extensions: { reason: 'used' } });
    expect(provider.oauth.exchanges.length).toBe(exchanges);
  });

  it('speaks GitLab’s flow too', async () => {
    const { url, cookie } = await begin(lab);
    expect(`${url.origin}${url.pathname}`).toBe(`${provider.url}/oauth/authorize`);
    expect(url.searchParams.get('response_type')).toBe('code');
    provider.oauth.allow({
      code: 'gl-code-1',
      clientId: APPS.gitlab.id,
      clientSecret: APPS.gitlab.secret,
      redirectUri: REDIRECT,
      accessToken: 'glpat-exchanged',
    });
    const res = await callback({ code: 'gl-code-1', state: url.searchParams.get('state')! }, cookie);
    expect(res.statusCode, res.body).toBe(200);
    expect((await ok('GET', `${BASE}/${lab}`)).hasToken).toBe(true);
    // GitLab's token lives two hours: used before then, it is used as it is.
    const sync = async () => {
      const r = await call('POST', `${BASE}/${lab}/gitops/sync`, { dryRun: true });
      expect(r.statusCode, r.body).toBe(200);
      return provider.requests.at(-1)!.auth ?? '';
    };
    expect(await sync()).toContain('glpat-exchanged');
    // Past its expiry, it is renewed with the refresh token first, and the new one is used (and kept).
    skewMs = 2 * 3600_000;
    try {
      const exchanges = provider.oauth.exchanges.length;
      const renewed = await sync();
      expect(renewed).toContain('glpat-exchanged.refreshed-');
      expect(provider.oauth.exchanges.slice(exchanges)).toMatchObject([
        { provider: 'gitlab', outcome: 'granted', params: { grant_type: 'refresh_token' } },
      ]);
      expect(await sync()).toBe(renewed);
      expect(provider.oauth.exchanges.length).toBe(exchanges + 1);
      // A token given by hand afterwards is not an expiring one: never refreshed.
      await ok('PATCH', `${BASE}/${lab}`, { token: 'initial-token' });
      skewMs = 48 * 3600_000;
      expect(await sync()).toContain('initial-token');
      expect(provider.oauth.exchanges.length).toBe(exchanges + 1);
    } finally {
      skewMs = 0;
    }
  });
});

describe('connecting a repository through OAuth', () => {
  it('refuses forged, foreign, revoked and declined callbacks without exchanging anything', async () => {
    const exchanges = provider.oauth.exchanges.length;
    const cases: [Record<string, string>, string][] = [
      [{ code: 'x', state: 'not-a-jwt' }, 'invalid'],
      [{ code: 'x' }, 'invalid'],
      [{ error: 'access_denied', state: 'x' }, 'invalid'],
      [{ code: 'x', state: 'a'.repeat(5000) }, ''],
    ];
    for (const [query, reason] of cases) {
      const res = await callback(query);
      expect(res.statusCode, JSON.stringify(query)).toBe(400);
      if (reason) expect(firstError(res.body).extensions.reason).toBe(reason);
    }
    // An access token is not a state.
    const access = await callback({ code: 'x', state: admin });
    expect(access.statusCode).toBe(400);
    // Another browser: an attacker's state sent to a victim (who has no cookie, or the cookie of a flow of their
    // own) is refused before anything is exchanged.
    const attackers = await begin(hub, admin2);
    const victims = await begin(hub);
    for (const cookie of [undefined, victims.cookie, 'svc_git_oauth=']) {
      const res = await callback({ code: 'x', state: attackers.url.searchParams.get('state')! }, cookie);
      expect(res.statusCode).toBe(400);
      expect(firstError(res.body).extensions.reason).toBe('browser');
    }
    // A state of a user who is no longer a site admin: refused.
    const admin2Id = (await ok('GET', '/api/v1/auth/me', undefined, { as: admin2 })).id as string;
    await ok('PATCH', `/api/v1/users/${admin2Id}`, { roleKey: 'editor' });
    const demoted = await callback({ code: 'x', state: attackers.url.searchParams.get('state')! }, attackers.cookie);
    expect(demoted.statusCode).toBe(400);
    expect(firstError(demoted.body).extensions.reason).toBe('revoked');
    // A code the provider does not know: 502, and the state is spent.
    const fresh = await begin(hub);
    const bad = await callback({ code: 'unknown-code', state: fresh.url.searchParams.get('state')! }, fresh.cookie);
    expect(bad.statusCode).toBe(502);
    expect(firstError(bad.body).code).toBe('GIT_PROVIDER_FAILED');
    expect(provider.oauth.exchanges.length).toBe(exchanges + 1);
  });

  it('sends the app’s secret to the app’s own host only, and drops a token pointed at another host', async () => {
    // An integration on another host: the instance's app is not for it, and nothing is sent anywhere.
    const elsewhere = (
      await ok('POST', BASE, {
        provider: 'github',
        repository: 'acme/site',
        baseUrl: 'http://127.0.0.2:9/api/v3',
        authMethod: 'app',
        webhookSecret: SECRET,
      })
    ).id as string;
    const res = await call('GET', `${BASE}/${elsewhere}/oauth/authorize`);
    expect(res.statusCode).toBe(503);
    expect(firstError(res.body).code).toBe('GIT_OAUTH_NOT_CONFIGURED');
    // The token stored for one host is dropped when the integration is pointed at another.
    expect((await ok('GET', `${BASE}/${hub}`)).hasToken).toBe(true);
    const moved = await ok('PATCH', `${BASE}/${hub}`, { baseUrl: 'http://127.0.0.2:9/api/v3' });
    expect(moved.hasToken).toBe(false);
    const back = await ok('PATCH', `${BASE}/${hub}`, { baseUrl: provider.githubApi, token: 'a-new-token' });
    expect(back.hasToken).toBe(true);
  });

  it('is asked for by site admins of the integration’s own site, and needs a configured app', async () => {
    const path = `${BASE}/${hub}/oauth/authorize`;
    expect((await call('GET', path, undefined, { as: null })).statusCode).toBe(401);
    expect((await call('GET', path, undefined, { as: editor })).statusCode).toBe(403);
    expect((await call('GET', path, undefined, { as: otherAdmin })).statusCode).toBe(403);
    expect((await call('GET', path, undefined, { as: otherAdmin, site: 'other' })).statusCode).toBe(404);
    const plain = await createTestApp();
    try {
      const token = await plain.setup();
      const created = await plain.call({
        method: 'POST',
        url: BASE,
        as: token,
        site: 'main',
        payload: { provider: 'github', repository: 'acme/site', authMethod: 'app', webhookSecret: SECRET },
      });
      const id = created.json().data.id as string;
      const res = await plain.call({ method: 'GET', url: `${BASE}/${id}/oauth/authorize`, as: token, site: 'main' });
      expect(res.statusCode).toBe(503);
      expect(firstError(res.body).code).toBe('GIT_OAUTH_NOT_CONFIGURED');
    } finally {
      await plain.close();
    }
  });
});
