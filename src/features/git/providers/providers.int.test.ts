import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startGitProvider, type GitProviderServer } from '../../../../test/support/git-provider.ts';
import { DomainError } from '../../../kernel/http/errors.ts';
import type { GitProvider } from '../../../contracts/git/git.events.ts';
import { repositoryOf, type ProviderAccess, type RepositoryPort } from './index.ts';

/**
 * The repository port's contract, for each adapter, against a provider server of the tests that serves a real bare
 * repository in GitHub's and GitLab's REST shapes (test/support/git-provider.ts).

 */
const TOKEN = 'test-token-3b1f9c0e7d2a';

/** The first commit of main: nested folders, a look-alike folder and file beside content/, Vietnamese and emoji. */
const FIRST: Record<string, string> = {
  'README.md': '# Site\n',
  'content.md': 'not under content/\n',
  'contentx/stray.json': '{"stray":true}\n',
  'content/posts/hello.json':
    '{\n  "title": "Xin chào thế giới 🌏",\n  "body": "Tiếng Việt có dấu: ă â đ ê ô ơ ư"\n}\n',
  'content/posts/2024/05/deep.yaml': 'title: Đây là bài viết lồng sâu 🚀\r\nbody: "CRLF line ends, no final newline"',
  'content/pages/about.yaml': 'title: Giới thiệu\nemoji: 👩🏽‍💻🇻🇳\n',
  'content/đường dẫn/tệp tin.json': '{"ok":"tên tệp có dấu cách và dấu"}',
  'content/empty.json': '',
};

/** The second commit of main: one file changed, one removed, one added. */
const SECOND: Record<string, string> = {
  ...Object.fromEntries(Object.entries(FIRST).filter(([p]) => p !== 'content/pages/about.yaml')),
  'content/posts/hello.json': '{\n  "title": "Chào buổi sáng ☀️"\n}\n',
  'content/posts/new.yaml': 'title: Mới\n',
};

const under = (files: Record<string, string>, dir: string) =>
  Object.keys(files)
    .filter((p) => p.startsWith(`${dir}/`))
    .sort();
const bytes = (s: string) => Buffer.byteLength(s, 'utf8');
const byPath = (a: { path: string }, b: { path: string }) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);

/** The rejection of `p`, which must be a DomainError. */
async function failureOf(p: Promise<unknown>): Promise<DomainError> {
  const err = await p.then(
    (value) => {
      throw new Error(`expected a rejection, got ${JSON.stringify(value)?.slice(0, 200)}`);
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(DomainError);
  return err as DomainError;
}
const reasonOf = (err: DomainError) => err.options.extensions?.reason;

let server: GitProviderServer;
let first: string;
let second: string;
/** A branch of 250 files under content/ (GitLab answers it in pages of 100). */
let big: string;

beforeAll(async () => {
  server = await startGitProvider({ token: TOKEN });
  first = await server.repo.commit('main', FIRST, 'first');
  second = await server.repo.commit('main', SECOND, 'second');
  const bulk: Record<string, string> = { 'README.md': 'big\n' };
  for (let i = 0; i < 250; i++)
    bulk[`content/bulk/${String(i % 5)}/item-${String(i).padStart(3, '0')}.json`] = `{"i":${String(i)}}`;
  big = await server.repo.commit('big', bulk, 'big');
}, 60_000);
afterAll(() => server?.close());
afterEach(() => expect(server.errors).toEqual([]));

/** What a port of the provider's adapter is given to reach the provider server of the tests. */
const access = (provider: GitProvider, over: Partial<ProviderAccess> = {}): ProviderAccess => ({
  repository: server.repository,
  baseUrl: provider === 'github' ? server.githubApi : server.url,
  token: TOKEN,
  allowPrivate: true,
  timeoutMs: 5000,
  ...over,
});

describe.each(['github', 'gitlab'] as const)('the repository port through %s', (provider: GitProvider) => {
  let port: RepositoryPort;
  beforeAll(() => {
    port = repositoryOf(provider, access(provider));
  });

  it('branchHead answers the commit the branch points to', async () => {
    expect(first).toMatch(/^[0-9a-f]{40}$/);
    expect(second).not.toBe(first);
    expect(await port.branchHead('main')).toBe(second);
    expect(await port.branchHead('big')).toBe(big);
  });

  it('branchHead follows the branch as commits land on it', async () => {
    const branch = `moving/${provider}`;
    const a = await server.repo.commit(branch, { 'content/a.json': '1' });
    expect(await port.branchHead(branch)).toBe(a);
    const b = await server.repo.commit(branch, { 'content/a.json': '2' });
    expect(b).not.toBe(a);
    expect(await port.branchHead(branch)).toBe(b);
  });

  it('listFiles gives exactly the files under the folder, nested folders included', async () => {
    const files = await port.listFiles(second, 'content');
    expect(files.map((f) => f.path).sort()).toEqual(under(SECOND, 'content'));
    // neither content.md nor contentx/… is under content/, and no folder is listed as a file
    expect(files.some((f) => f.path.startsWith('contentx/') || f.path === 'content.md')).toBe(false);
  });

  it('listFiles of a nested folder, and of the whole repository ("")', async () => {
    expect((await port.listFiles(second, 'content/posts')).map((f) => f.path).sort()).toEqual(
      under(SECOND, 'content/posts'),
    );
    expect((await port.listFiles(second, '')).map((f) => f.path).sort()).toEqual(Object.keys(SECOND).sort());
  });

  it('listFiles of an older commit gives that commit’s tree (time travel by sha)', async () => {
    expect((await port.listFiles(first, 'content')).map((f) => f.path).sort()).toEqual(under(FIRST, 'content'));
    expect((await port.listFiles(second, 'content')).map((f) => f.path)).not.toContain('content/pages/about.yaml');
  });

  it('listFiles gives each file’s size in bytes where the provider tells it (GitLab’s tree has none)', async () => {
    const files = (await port.listFiles(second, 'content')).sort(byPath);
    const expected = under(SECOND, 'content').map((path) => ({
      path,
      size: provider === 'gitlab' ? null : bytes(SECOND[path]!),
    }));
    expect(files).toEqual(expected);
  });

  it('listFiles of a folder the commit does not have is empty', async () => {
    expect(await port.listFiles(second, 'nothing-here')).toEqual([]);
  });

  it('listFiles of an unknown commit is GIT_REF_NOT_FOUND', async () => {
    const err = await failureOf(port.listFiles('0123456789abcdef0123456789abcdef01234567', 'content'));
    expect(err.code).toBe('GIT_REF_NOT_FOUND');
  });

  it('readFile returns the UTF-8 text exactly, at the commit asked', async () => {
    for (const path of Object.keys(FIRST)) expect(await port.readFile(first, path)).toBe(FIRST[path]);
    expect(await port.readFile(second, 'content/posts/hello.json')).toBe(SECOND['content/posts/hello.json']);
    expect(await port.readFile(first, 'content/posts/hello.json')).toBe(FIRST['content/posts/hello.json']);
  });

  it('readFile of a file the commit does not have is GIT_PROVIDER_FAILED', async () => {
    const err = await failureOf(port.readFile(second, 'content/pages/about.yaml'));
    expect(err.code).toBe('GIT_PROVIDER_FAILED');
  });
});

describe.each(['github', 'gitlab'] as const)('the repository port through %s', (provider: GitProvider) => {
  let port: RepositoryPort;
  beforeAll(() => {
    port = repositoryOf(provider, access(provider));
  });
  it('readFile of a file above 1 MiB reads it whole (or refuses), never as ""', async () => {
    const text = `${'Tiếng Việt 🚀 '.repeat(70_000)}end`;
    expect(bytes(text)).toBeGreaterThan(1024 * 1024);
    const sha = await server.repo.commit(`large/${provider}`, { 'content/large.json': text });
    const read = await port.readFile(sha, 'content/large.json').then(
      (t) => t,
      (err: unknown) => (err instanceof DomainError ? err.code : err),
    );
    const seen =
      read === text
        ? 'the text'
        : read === 'GIT_PROVIDER_FAILED'
          ? read
          : typeof read === 'string'
            ? `${String(read.length)} characters`
            : read;
    expect(['the text', 'GIT_PROVIDER_FAILED']).toContain(seen);
  });

  it('an unknown branch is GIT_REF_NOT_FOUND', async () => {
    const err = await failureOf(port.branchHead('no-such-branch'));
    expect(err.code).toBe('GIT_REF_NOT_FOUND');
  });

  it('a wrong token is GIT_PROVIDER_FAILED (the provider answered 401)', async () => {
    const from = server.requests.length;
    const err = await failureOf(repositoryOf(provider, access(provider, { token: 'wrong-token' })).branchHead('main'));
    expect(err.code).toBe('GIT_PROVIDER_FAILED');
    expect(reasonOf(err)).toBe('answered 401');
    expect(server.requests.slice(from).map((r) => r.auth)).toEqual([
      provider === 'github' ? 'token wrong-token' : 'wrong-token',
    ]);
  });

  it('every request goes to the provider’s API with the token', async () => {
    const from = server.requests.length;
    await port.branchHead('main');
    await port.listFiles(second, 'content');
    await port.readFile(second, 'content/posts/hello.json');
    const sent = server.requests.slice(from);
    expect(sent.length).toBeGreaterThanOrEqual(3);
    for (const r of sent) {
      expect(r.method).toBe('GET');
      if (provider === 'github') {
        expect(r.path.startsWith('/api/v3/repos/acme/site/')).toBe(true);
        expect(r.auth).toBe(`token ${TOKEN}`);
      } else {
        expect(r.path.startsWith('/api/v4/projects/acme%2Fsite/repository/')).toBe(true);
        expect(r.headers['private-token']).toBe(TOKEN);
      }
    }
  });

  it('without allowPrivate the loopback provider is refused before any request (GIT_PROVIDER_FAILED)', async () => {
    const from = server.requests.length;
    const guarded = repositoryOf(provider, access(provider, { allowPrivate: false }));
    expect((await failureOf(guarded.branchHead('main'))).code).toBe('GIT_PROVIDER_FAILED');
    expect((await failureOf(guarded.listFiles(second, 'content'))).code).toBe('GIT_PROVIDER_FAILED');
    expect((await failureOf(guarded.readFile(second, 'README.md'))).code).toBe('GIT_PROVIDER_FAILED');
    expect(server.requests.length).toBe(from);
  });

  it('the refusal names its reason: private_address', async () => {
    const err = await failureOf(repositoryOf(provider, access(provider, { allowPrivate: false })).branchHead('main'));
    expect(err.code).toBe('GIT_PROVIDER_FAILED');
    expect(reasonOf(err)).toBe('private_address');
    expect(err.toErrorObjects()[0]!.extensions).toEqual({ reason: 'private_address' });
  });
});

describe.each(['github', 'gitlab'] as const)('the repository port through %s', (provider: GitProvider) => {
  let port: RepositoryPort;
  beforeAll(() => {
    port = repositoryOf(provider, access(provider));
  });
  it('a folder of 250 files is listed completely (GitLab: every page)', async () => {
    const from = server.requests.length;
    const files = await port.listFiles(big, 'content');
    expect(files).toHaveLength(250);
    expect(new Set(files.map((f) => f.path)).size).toBe(250);
    expect(files.every((f) => /^content\/bulk\/\d\/item-\d{3}\.json$/.test(f.path))).toBe(true);
    if (provider === 'gitlab') {
      const pages = server.requests.slice(from).filter((r) => r.path.endsWith('/repository/tree'));
      expect(pages.length).toBeGreaterThanOrEqual(3);
    }
  });

  it('a tree too large to list is refused, never cut short', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 10_001; i++) files[`content/many/${String(i).padStart(5, '0')}.json`] = '{}';
    const sha = await server.repo.commit(`huge/${provider}`, files);
    const limit = server.limits.githubTreeEntries;
    server.limits.githubTreeEntries = 5_000; // GitHub truncates at 100,000 entries: the same, smaller
    try {
      const outcome = await port.listFiles(sha, 'content').then(
        (listed) => listed.length,
        (err: unknown) => (err instanceof DomainError ? err.code : err),
      );
      expect([10_001, 'GIT_PROVIDER_FAILED']).toContain(outcome);
    } finally {
      server.limits.githubTreeEntries = limit;
    }
  }, 60_000);

  it('refs and paths shaped like options, ranges or climbs find nothing', async () => {
    for (const ref of ['--upload-pack=touch pwned', '-n', 'main..main', '../main', 'main@{0}', 'main~1', 'main^', '..'])
      expect((await failureOf(port.branchHead(ref))).code).toBe('GIT_REF_NOT_FOUND');
    for (const sha of ['-r', '--output=x', `${first}..${second}`, 'main@{1}'])
      expect((await failureOf(port.listFiles(sha, 'content'))).code).toBe('GIT_REF_NOT_FOUND');
    for (const path of ['../README.md', 'content/../README.md', '-p', './README.md', '../config'])
      expect((await failureOf(port.readFile(second, path))).code).toBe('GIT_PROVIDER_FAILED');
  });
});
