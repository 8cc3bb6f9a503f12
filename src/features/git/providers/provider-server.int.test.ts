import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startGitProvider, type GitProviderServer } from '../../../../test/support/git-provider.ts';
import { DomainError } from '../../../kernel/http/errors.ts';
import { repositoryOf } from './index.ts';

/**
 * The provider server of the tests (test/support/git-provider.ts) answers as GitHub and GitLab do, and never lets a
 * request's ref or path reach git as anything but a ref or a path.
 */
const TOKEN = 'test-token-3b1f9c0e7d2a';

let server: GitProviderServer;
/** The head of main. */
let main: string;
/** A branch of 250 files under content/ (GitLab answers it in pages of 100). */
let big: string;

beforeAll(async () => {
  server = await startGitProvider({ token: TOKEN });
  main = await server.repo.commit('main', { 'README.md': '# Site\n' }, 'first');
  const bulk: Record<string, string> = { 'README.md': 'big\n' };
  for (let i = 0; i < 250; i++)
    bulk[`content/bulk/${String(i % 5)}/item-${String(i).padStart(3, '0')}.json`] = `{"i":${String(i)}}`;
  big = await server.repo.commit('big', bulk, 'big');
}, 60_000);
afterAll(() => server?.close());
afterEach(() => expect(server.errors).toEqual([]));

const get = (path: string, headers: Record<string, string> = { authorization: `token ${TOKEN}` }) =>
  fetch(`${server.url}${path}`, { headers });
const post = (path: string, body: string, headers: Record<string, string>) =>
  fetch(`${server.url}${path}`, { method: 'POST', body, headers });

/** The code of the DomainError `p` rejects with. */
const failureCode = (p: Promise<unknown>) =>
  p.then(
    (value) => {
      throw new Error(`expected a rejection, got ${JSON.stringify(value)?.slice(0, 200)}`);
    },
    (e: unknown) => {
      expect(e).toBeInstanceOf(DomainError);
      return (e as DomainError).code;
    },
  );

describe('the provider server of the tests', () => {
  it('refuses refs and paths that git would read as options, ranges or climbs, without running them', async () => {
    const marker = join(tmpdir(), `git-provider-marker-${String(process.pid)}`);
    const out = encodeURIComponent(`--output=${marker}`);
    const gl = { 'private-token': TOKEN };
    const answers = await Promise.all([
      get(`/api/v3/repos/acme/site/branches/${out}`),
      get('/api/v3/repos/acme/site/branches/-h'),
      get('/api/v3/repos/acme/site/git/trees/main..main?recursive=1'),
      get(`/api/v3/repos/acme/site/git/trees/${out}`),
      get('/api/v3/repos/acme/site/contents/..%2F..%2F..%2Fetc%2Fpasswd?ref=main'),
      get(`/api/v3/repos/acme/site/contents/README.md?ref=${out}`),
      get(`/api/v3/repos/acme/site/contents/README.md?ref=main%40%7B0%7D`),
      get(`/api/v4/projects/acme%2Fsite/repository/branches/${out}`, gl),
      get('/api/v4/projects/acme%2Fsite/repository/tree?ref=-n&recursive=true', gl),
      get('/api/v4/projects/acme%2Fsite/repository/tree?ref=main&path=..%2F..', gl),
      get('/api/v4/projects/acme%2Fsite/repository/tree?ref=main&path=-r', gl),
      get('/api/v4/projects/acme%2Fsite/repository/files/..%2Fconfig/raw?ref=main', gl),
      get(`/api/v4/projects/acme%2Fsite/repository/files/README.md/raw?ref=${out}`, gl),
    ]);
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 404));
    for (const a of answers) expect(typeof ((await a.json()) as { message?: unknown }).message).toBe('string');
    expect(existsSync(marker)).toBe(false);
  });

  it('answers a wrong token 401 and no token 404, as the providers do', async () => {
    const branch = '/api/v3/repos/acme/site/branches/main';
    expect((await get(branch)).status).toBe(200);
    expect((await get(branch, { authorization: `Bearer ${TOKEN}` })).status).toBe(200);
    const wrong = await get(branch, { authorization: 'token nope' });
    expect([wrong.status, await wrong.json()]).toEqual([401, expect.objectContaining({ message: 'Bad credentials' })]);
    expect((await get(branch, {})).status).toBe(404);
    const gl = '/api/v4/projects/acme%2Fsite/repository/branches/main';
    expect((await get(gl, { 'private-token': TOKEN })).status).toBe(200);
    expect(
      (await get('/api/v4/projects/42/repository/branches/main', { authorization: `Bearer ${TOKEN}` })).status,
    ).toBe(200);
    const glWrong = await get(gl, { 'private-token': 'nope' });
    expect([glWrong.status, await glWrong.json()]).toEqual([401, { message: '401 Unauthorized' }]);
    expect((await get(gl, {})).status).toBe(404);
  });

  it('pages GitLab trees with its headers', async () => {
    const res = await get(
      `/api/v4/projects/acme%2Fsite/repository/tree?ref=${big}&path=content&recursive=true&per_page=100&page=2`,
      { 'private-token': TOKEN },
    );
    expect(res.status).toBe(200);
    expect(((await res.json()) as unknown[]).length).toBe(100);
    // 250 files and 6 folders (content/bulk and its 5 subfolders)
    expect(
      Object.fromEntries(
        ['x-page', 'x-per-page', 'x-next-page', 'x-prev-page', 'x-total', 'x-total-pages'].map((h) => [
          h,
          res.headers.get(h),
        ]),
      ),
    ).toEqual({
      'x-page': '2',
      'x-per-page': '100',
      'x-next-page': '3',
      'x-prev-page': '1',
      'x-total': '256',
      'x-total-pages': '3',
    });
    expect(res.headers.get('link')).toMatch(/<[^>]*[?&]page=3[^>]*>; rel="next"/);
  });
});

describe('the provider server of the tests', () => {
  it('exchanges GitHub OAuth codes once, answering errors 200 with an `error`, as GitHub does', async () => {
    const grant = {
      code: 'gh-code-1',
      clientId: 'gh-client',
      clientSecret: 'gh-secret',
      redirectUri: 'https://cms.example.com/api/v1/integrations/git/oauth/callback',
      accessToken: 'gho_exchanged',
    };
    server.oauth.allow(grant);
    const form = (over: Record<string, string> = {}) =>
      new URLSearchParams({
        client_id: grant.clientId,
        client_secret: grant.clientSecret,
        code: grant.code,
        redirect_uri: grant.redirectUri,
        ...over,
      }).toString();
    const formType = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
    const wrongSecret = await post('/login/oauth/access_token', form({ client_secret: 'x' }), formType);
    expect([wrongSecret.status, ((await wrongSecret.json()) as { error: string }).error]).toEqual([
      200,
      'incorrect_client_credentials',
    ]);
    const ok = await post('/login/oauth/access_token', form(), formType);
    expect(await ok.json()).toEqual({ access_token: 'gho_exchanged', token_type: 'bearer', scope: 'repo' });
    const again = await post(
      '/login/oauth/access_token',
      JSON.stringify({
        client_id: grant.clientId,
        client_secret: grant.clientSecret,
        code: grant.code,
        redirect_uri: grant.redirectUri,
      }),
      { 'content-type': 'application/json', accept: 'application/json' },
    );
    expect(((await again.json()) as { error: string }).error).toBe('bad_verification_code');
    // without Accept: application/json, GitHub answers a form
    server.oauth.allow({ ...grant, code: 'gh-code-2', accessToken: 'gho_second' });
    const asForm = await post('/login/oauth/access_token', form({ code: 'gh-code-2' }), {
      'content-type': 'application/x-www-form-urlencoded',
    });
    expect(Object.fromEntries(new URLSearchParams(await asForm.text()))).toEqual({
      access_token: 'gho_second',
      token_type: 'bearer',
      scope: 'repo',
    });
    expect(server.oauth.exchanges.filter((e) => e.provider === 'github').map((e) => e.outcome)).toEqual([
      'incorrect_client_credentials',
      'granted',
      'bad_verification_code',
      'granted',
    ]);
    // the token OAuth gave is accepted by the API
    const withIt = repositoryOf('github', {
      repository: server.repository,
      baseUrl: server.githubApi,
      token: 'gho_exchanged',
      allowPrivate: true,
      timeoutMs: 5000,
    });
    expect(await withIt.branchHead('main')).toBe(main);
  });
});

describe('the provider server of the tests', () => {
  it('exchanges GitLab OAuth codes and refresh tokens, with Doorkeeper’s errors', async () => {
    const grant = {
      code: 'gl-code-1',
      clientId: 'gl-client',
      clientSecret: 'gl-secret',
      redirectUri: 'https://cms.example.com/callback',
      accessToken: 'glo_exchanged',
      refreshToken: 'glr_1',
    };
    server.oauth.allow(grant);
    const json = { 'content-type': 'application/json' };
    const body = (over: Record<string, string> = {}) =>
      JSON.stringify({
        grant_type: 'authorization_code',
        client_id: grant.clientId,
        client_secret: grant.clientSecret,
        code: grant.code,
        redirect_uri: grant.redirectUri,
        ...over,
      });
    const badClient = await post('/oauth/token', body({ client_secret: 'x' }), json);
    expect([badClient.status, ((await badClient.json()) as { error: string }).error]).toEqual([401, 'invalid_client']);
    const badRedirect = await post('/oauth/token', body({ redirect_uri: 'https://evil.example/' }), json);
    expect([badRedirect.status, ((await badRedirect.json()) as { error: string }).error]).toEqual([
      400,
      'invalid_grant',
    ]);
    const ok = await post('/oauth/token', body(), json);
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({
      access_token: 'glo_exchanged',
      token_type: 'Bearer',
      expires_in: 7200,
      refresh_token: 'glr_1',
      scope: 'api read_repository',
      created_at: expect.any(Number),
    });
    expect((await post('/oauth/token', body(), json)).status).toBe(400); // codes are single-use
    const refreshed = await post(
      '/oauth/token',
      new URLSearchParams({ grant_type: 'refresh_token', refresh_token: 'glr_1' }).toString(),
      {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from('gl-client:gl-secret').toString('base64')}`,
      },
    );
    const next = (await refreshed.json()) as { access_token: string; refresh_token: string };
    expect(refreshed.status).toBe(200);
    expect(next.access_token).not.toBe('glo_exchanged');
    expect(next.refresh_token).not.toBe('glr_1');
    const oauthPort = (token: string) =>
      repositoryOf('gitlab', {
        repository: server.repository,
        baseUrl: server.url,
        token,
        allowPrivate: true,
        timeoutMs: 5000,
      });
    expect(await oauthPort(next.access_token).branchHead('main')).toBe(main);
    expect(await failureCode(oauthPort('glo_exchanged').branchHead('main'))).toBe('GIT_PROVIDER_FAILED');
  });
});
