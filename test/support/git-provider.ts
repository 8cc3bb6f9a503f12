import { execFile } from 'node:child_process';
import { randomBytes, type KeyObject } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { devNull, tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeJwt, errors as joseErrors, jwtVerify } from 'jose';

/**
 * A git provider for tests, on loopback HTTP: a REAL bare repository (`git init --bare` in a temporary directory,
 * read and written with the git CLI) behind the few REST endpoints of GitHub and GitLab the adapters call, in the
 * shapes those providers answer, plus their OAuth token endpoints.
 *
 * - GitHub (Enterprise) API under `/api/v3`: branches, git trees (`recursive` of any value recurses; a tree larger
 *   than `limits.githubTreeEntries` is answered `truncated: true`), contents (base64 in 60-character lines; a file
 *   larger than `limits.githubContentBytes` has `encoding: 'none'` and empty content, as GitHub does above 1 MiB).
 *   Credentials: `Authorization: token <t>` or `Bearer <t>`; a wrong one is 401 "Bad credentials", none is 404
 *   (GitHub hides a private repository from anonymous callers).
 * - GitLab API under `/api/v4`: branches, repository tree (offset pagination: `page`, `per_page` up to 100, the
 *   `x-page`/`x-next-page`/`x-total-pages`/… headers and a `link` header, as GitLab sends them; a missing `path` is
 *   404 "Tree Not Found", as GitLab answers since 16.5), raw files (`text/plain`). Credentials: `PRIVATE-TOKEN` or
 *   `Authorization: Bearer`; a wrong one is 401, none is 404 "Project Not Found".
 * - GitHub Apps: `POST /api/v3/app/installations/:id/access_tokens` with the app's JWT (`Authorization: Bearer`,
 *   RS256 under the registered app's key, `iss` its id, at most ten minutes between `iat` and `exp`, GitHub's 401
 *   messages otherwise); answered 201 `{ token, expires_at, permissions, repository_selection }`, the token then
 *   accepted by the API. A `repositories` list naming another repository is GitHub's 422.
 * - OAuth: GitHub `POST /login/oauth/access_token` (errors are 200 with an `error` field, as GitHub answers them;
 *   JSON when asked by `Accept`, a form otherwise) and GitLab `POST /oauth/token` (authorization_code and
 *   refresh_token grants, Doorkeeper's errors: 400 invalid_grant, 401 invalid_client). Codes are single-use; the
 *   access tokens they give are accepted by the API afterwards.
 *
 * Refs and paths from requests reach git only as arguments (execFile, never a shell), after a check: a ref is
 * letters, digits and `._/-` without `..`, `@{` or a leading `-`; a path has no empty, `.` or `..` part and no
 * leading `-`. Anything else is answered 404, as an unknown ref or path.
 */
export interface GitProviderServer {
  /** The server's origin (`http://127.0.0.1:PORT`): GitLab's `baseUrl`, and the OAuth endpoints' host. */
  url: string;
  /** The GitHub Enterprise API address (`${url}/api/v3`): GitHub's `baseUrl`. */
  githubApi: string;
  /** The repository served: `owner/name` on GitHub, the project path on GitLab. */
  repository: string;
  /** GitLab's numeric id of the project (also accepted in place of the path). */
  projectId: number;
  repo: BareRepo;
  /** Tokens the API accepts (the one started with, and those OAuth gave); delete one to revoke it. */
  tokens: Set<string>;
  /** Every request, in order. */
  requests: RecordedRequest[];
  /** Provider limits, changeable by a test. */
  limits: { githubTreeEntries: number; githubContentBytes: number };
  oauth: {
    /** Registers an authorization code the token endpoints exchange once. */
    allow(grant: OAuthGrant): void;
    exchanges: OAuthExchange[];
  };
  apps: {
    /** Registers a GitHub App's installation of the repository: its public key checks the app's JWTs. */
    install(app: GitHubAppInstallation): void;
    /** Every installation token asked for, in order. */
    mints: AppTokenRequest[];
  };
  /** Failures of the server itself (each also answered 500): a test may expect none. */
  errors: unknown[];
  close(): Promise<void>;
}

export interface RecordedRequest {
  method: string;
  /** The path as sent (still percent-encoded), without the query. */
  path: string;
  /** The query as sent, without `?`. */
  query: string;
  /** The `Authorization` header, else the `PRIVATE-TOKEN` header, else null. */
  auth: string | null;
  headers: http.IncomingHttpHeaders;
}

export interface OAuthGrant {
  code: string;
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  accessToken: string;
  /** Default: `repo` (GitHub), `api read_repository` (GitLab). */
  scope?: string;
  /** GitLab's refresh token of the grant; default: generated. */
  refreshToken?: string;
}

export interface GitHubAppInstallation {
  appId: string;
  installationId: string;
  publicKey: KeyObject;
  /** How long its tokens live; default an hour, as GitHub's do. */
  tokenTtlS?: number;
}

export interface AppTokenRequest {
  installationId: string;
  /** The JWT's claims as sent (decoded, whether or not it was valid). */
  claims: Record<string, unknown> | null;
  /** The request's `repositories`, if it named any. */
  repositories: string[] | null;
  /** `granted`, or GitHub's message. */
  outcome: string;
  /** The token given, when granted. */
  token: string | null;
}

export interface OAuthExchange {
  provider: 'github' | 'gitlab';
  /** The request's parameters, query and body together. */
  params: Record<string, string>;
  accept: string | null;
  /** The `Authorization` header (GitLab takes client credentials as HTTP Basic too). */
  auth: string | null;
  /** `granted`, or the OAuth error answered. */
  outcome: string;
}

export interface BareRepo {
  /** The bare repository's directory. */
  dir: string;
  /**
   * A commit on `branch` (created when missing) whose whole tree is `files` (`{ path: content }`, UTF-8 text or
   * bytes): files left out are deleted. Returns the commit's sha.
   */
  commit(branch: string, files: Record<string, string | Uint8Array>, message?: string): Promise<string>;
  /** The commit a branch points to, or null. */
  head(branch: string): Promise<string | null>;
}

// ---------------------------------------------------------------------------------------------------------------
// git

const IDENTITY = {
  GIT_AUTHOR_NAME: 'Test Author',
  GIT_AUTHOR_EMAIL: 'author@example.com',
  GIT_COMMITTER_NAME: 'Test Committer',
  GIT_COMMITTER_EMAIL: 'committer@example.com',
};

/** The environment git runs in: none of the caller's GIT_* (a hook's GIT_DIR…), no user or system config. */
function gitEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('GIT_')) env[k] = v;
  return {
    ...env,
    ...IDENTITY,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: devNull,
    GIT_TERMINAL_PROMPT: '0',
    LC_ALL: 'C',
    ...extra,
  };
}

class GitFailed extends Error {
  constructor(
    readonly args: string[],
    readonly exitCode: number | string | undefined,
    readonly stderr: string,
  ) {
    super(`git ${args.join(' ')} failed (${String(exitCode)}): ${stderr.trim()}`);
  }
}

/** Runs git with arguments (never through a shell); resolves with its standard output. */
function git(args: string[], opts: { input?: Buffer; env?: Record<string, string> } = {}): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      'git',
      args,
      { encoding: 'buffer', maxBuffer: 512 * 1024 * 1024, env: gitEnv(opts.env) },
      (err, stdout, stderr) => {
        if (err) reject(new GitFailed(args, err.code ?? undefined, stderr.toString('utf8')));
        else resolve(stdout);
      },
    );
    child.stdin?.on('error', () => {}); // git may exit before reading everything; its exit code tells
    child.stdin?.end(opts.input);
  });
}

/** git's answer, or null when git refuses (unknown object, not a tree…). */
const gitOrNull = (args: string[]) =>
  git(args).then(
    (out) => out,
    (err: unknown) => {
      if (err instanceof GitFailed) return null;
      throw err;
    },
  );

/** A ref as a caller may name it: git's rules, on letters, digits and `._/-`, never an option or a range. */
const REF = /^(?![-/.])(?!.*\.\.)(?!.*\/\/)(?!.*\/\.)(?!.*@\{)(?!.*\.lock$)(?!.*[/.]$)[A-Za-z0-9._/-]{1,250}$/;
const HEX = /^[0-9a-f]{7,40}$/;
const isRef = (ref: string) => REF.test(ref);
/** A path of the repository: no empty, `.` or `..` part, no leading `-`, no control characters. */
const isPath = (p: string) =>
  p.length > 0 &&
  p.length <= 4096 &&
  !p.startsWith('-') &&
  // eslint-disable-next-line no-control-regex
  !/[\x00-\x1f]/.test(p) &&
  p.split('/').every((s) => s !== '' && s !== '.' && s !== '..');

interface TreeEntry {
  mode: string;
  type: 'blob' | 'tree' | 'commit';
  sha: string;
  /** Bytes of a blob; null for a tree or submodule. */
  size: number | null;
  path: string;
}

interface CommitInfo {
  sha: string;
  tree: string;
  parents: string[];
  authorName: string;
  authorEmail: string;
  authorDate: string;
  committerName: string;
  committerEmail: string;
  committerDate: string;
  message: string;
}

function createBareRepo(dir: string) {
  let clock = 1_700_000_000;
  let queue: Promise<unknown> = Promise.resolve();

  /** The object a revision names, peeled to `peel`, or null. `rev` is built here, never taken raw from a request. */
  const revParse = async (rev: string, peel: 'commit' | 'tree' | 'blob' | null) => {
    const out = await gitOrNull(['-C', dir, 'rev-parse', '--verify', '--quiet', peel ? `${rev}^{${peel}}` : rev]);
    return out ? out.toString('utf8').trim() : null;
  };

  /** A caller's ref (a sha, a branch or a tag) resolved to `peel`, or null (also when the ref is not acceptable). */
  async function resolve(ref: string, peel: 'commit' | 'tree'): Promise<string | null> {
    if (!isRef(ref)) return null;
    const candidates = [...(HEX.test(ref) ? [ref] : []), `refs/heads/${ref}`, `refs/tags/${ref}`];
    for (const c of candidates) {
      const sha = await revParse(c, peel);
      if (sha) return sha;
    }
    return null;
  }

  async function branch(name: string): Promise<string | null> {
    return isRef(name) ? revParse(`refs/heads/${name}`, 'commit') : null;
  }

  /** Listings by tree sha, path and depth: a commit's tree never changes. */
  const listings = new Map<string, TreeEntry[] | null>();

  /** The entries of a tree (`treeish` built here: a sha, optionally `:path`), paths relative to the repository. */
  async function lsTree(sha: string, dir_: string, recursive: boolean): Promise<TreeEntry[] | null> {
    const key = `${sha}\0${dir_}\0${String(recursive)}`;
    if (!listings.has(key)) listings.set(key, await listTree(sha, dir_, recursive));
    return listings.get(key)!;
  }

  async function listTree(sha: string, dir_: string, recursive: boolean): Promise<TreeEntry[] | null> {
    const treeish = dir_ ? `${sha}:${dir_}` : `${sha}^{tree}`;
    const type = await gitOrNull(['-C', dir, 'cat-file', '-t', treeish]);
    if (!type || type.toString('utf8').trim() !== 'tree') return null;
    const out = await git(['-C', dir, 'ls-tree', '-z', '-l', ...(recursive ? ['-r', '-t'] : []), treeish]);
    const prefix = dir_ ? `${dir_}/` : '';
    return out
      .toString('utf8')
      .split('\0')
      .filter(Boolean)
      .map((record) => {
        const tab = record.indexOf('\t');
        const [mode = '', type = '', object = '', size = '-'] = record.slice(0, tab).split(/ +/);
        return {
          mode,
          type: type as TreeEntry['type'],
          sha: object,
          size: size === '-' ? null : Number(size),
          path: prefix + record.slice(tab + 1),
        };
      });
  }

  /** A file's bytes and blob sha at a commit, or null (missing, a folder, or not an acceptable path). */
  async function blob(sha: string, path: string): Promise<{ sha: string; bytes: Buffer } | null> {
    if (!HEX.test(sha) || !isPath(path)) return null;
    const object = await revParse(`${sha}:${path}`, null);
    if (!object) return null;
    const type = await git(['-C', dir, 'cat-file', '-t', object]);
    if (type.toString('utf8').trim() !== 'blob') return null;
    return { sha: object, bytes: await git(['-C', dir, 'cat-file', 'blob', object]) };
  }

  async function commitInfo(sha: string): Promise<CommitInfo> {
    const format = ['%H', '%T', '%P', '%an', '%ae', '%aI', '%cn', '%ce', '%cI', '%B'].join('%x00');
    const out = await git(['-C', dir, 'log', '-1', `--format=${format}`, sha]);
    const [h = '', t = '', p = '', an = '', ae = '', ad = '', cn = '', ce = '', cd = '', ...msg] = out
      .toString('utf8')
      .split('\0');
    return {
      sha: h,
      tree: t,
      parents: p ? p.split(' ') : [],
      authorName: an,
      authorEmail: ae,
      authorDate: ad,
      committerName: cn,
      committerEmail: ce,
      committerDate: cd,
      message: msg.join('\0').replace(/\n+$/, ''),
    };
  }

  /** One fast-import stream: a commit whose tree is exactly `files` (deleteall, then every file inline). */
  async function writeCommit(name: string, files: Record<string, string | Uint8Array>, message: string) {
    if (!isRef(name)) throw new Error(`not a branch name for this test repository: ${name}`);
    const parent = await branch(name);
    clock += 60;
    const when = `${String(clock)} +0000`;
    const parts: Buffer[] = [];
    const line = (s: string) => parts.push(Buffer.from(`${s}\n`, 'utf8'));
    const data = (b: Buffer) => {
      line(`data ${String(b.length)}`);
      parts.push(b, Buffer.from('\n'));
    };
    line(`commit refs/heads/${name}`);
    line(`author ${IDENTITY.GIT_AUTHOR_NAME} <${IDENTITY.GIT_AUTHOR_EMAIL}> ${when}`);
    line(`committer ${IDENTITY.GIT_COMMITTER_NAME} <${IDENTITY.GIT_COMMITTER_EMAIL}> ${when}`);
    data(Buffer.from(`${message}\n`, 'utf8'));
    if (parent) line(`from ${parent}`);
    line('deleteall');
    for (const [path, content] of Object.entries(files).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      if (!isPath(path)) throw new Error(`not a file path for this test repository: ${JSON.stringify(path)}`);
      line(`M 100644 inline "${path.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`);
      data(typeof content === 'string' ? Buffer.from(content, 'utf8') : Buffer.from(content));
    }
    line('done');
    const date = `@${when}`;
    await git(['-C', dir, 'fast-import', '--quiet', '--done'], {
      input: Buffer.concat(parts),
      env: { GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date },
    });
    const sha = await branch(name);
    if (!sha) throw new Error(`fast-import left no branch ${name}`);
    return sha;
  }

  const repo: BareRepo = {
    dir,
    commit(name, files, message = `commit ${String(clock - 1_699_999_999)}`) {
      const run = queue.then(() => writeCommit(name, files, message));
      queue = run.catch(() => {});
      return run;
    },
    head: (name) => branch(name),
  };
  return { repo, resolve, branch, lsTree, blob, commitInfo };
}

// ---------------------------------------------------------------------------------------------------------------
// HTTP

type Reply = { status: number; headers?: Record<string, string>; body: string | Buffer | object };
type Params = Map<string, string>;

const json = (status: number, body: object, headers: Record<string, string> = {}): Reply => ({
  status,
  headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
  body,
});

function send(res: http.ServerResponse, reply: Reply) {
  const body =
    typeof reply.body === 'string' || Buffer.isBuffer(reply.body)
      ? Buffer.from(reply.body)
      : Buffer.from(JSON.stringify(reply.body), 'utf8');
  res.writeHead(reply.status, { ...reply.headers, 'content-length': String(body.length) });
  res.end(body);
}

/** The path's parts, percent-decoded one by one (a `%2F` stays inside its part); null when not decodable. */
function segments(path: string): string[] | null {
  try {
    return path.split('/').slice(1).map(decodeURIComponent);
  } catch {
    return null;
  }
}

function readBody(req: http.IncomingMessage, max = 1024 * 1024): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > max) reject(new Error('request body too large'));
      else chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** Query and body parameters (form or JSON), body last. */
function paramsOf(query: URLSearchParams, req: http.IncomingMessage, body: Buffer): Params {
  const params: Params = new Map(query);
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'application/json') {
    try {
      const parsed: unknown = JSON.parse(body.toString('utf8'));
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed))
        for (const [k, v] of Object.entries(parsed))
          if (typeof v === 'string' || typeof v === 'number') params.set(k, String(v));
    } catch {
      // an unparsable body has no parameters
    }
  } else if (type === 'application/x-www-form-urlencoded') {
    for (const [k, v] of new URLSearchParams(body.toString('utf8'))) params.set(k, v);
  }
  return params;
}

const base64Lines = (b: Buffer) => (b.toString('base64').match(/.{1,60}/g) ?? []).map((l) => `${l}\n`).join('');

export async function startGitProvider(opts: {
  token: string;
  /** Default `acme/site`. */
  repository?: string;
  /** Default 42. */
  projectId?: number;
}): Promise<GitProviderServer> {
  const root = await mkdtemp(join(tmpdir(), 'svc-git-provider-'));
  const dir = join(root, 'repo.git');
  await git(['init', '--bare', '--quiet', '--initial-branch=main', dir]);
  const bare = createBareRepo(dir);
  const repository = opts.repository ?? 'acme/site';
  const projectId = opts.projectId ?? 42;
  const tokens = new Set([opts.token]);
  const requests: RecordedRequest[] = [];
  const errors: unknown[] = [];
  const limits = { githubTreeEntries: 100_000, githubContentBytes: 1024 * 1024 };
  const grants = new Map<string, OAuthGrant>();
  const clients = new Map<string, string>();
  const refreshTokens = new Map<string, OAuthGrant>();
  const exchanges: OAuthExchange[] = [];
  const installations = new Map<string, GitHubAppInstallation>();
  const mints: AppTokenRequest[] = [];
  let url = '';
  let requestCount = 0;

  // ------------------------------------------------------------------------------------------- GitHub REST
  const ghNotFound = () =>
    json(404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest', status: '404' });

  /** `POST /app/installations/:id/access_tokens`, as GitHub answers it. */
  async function githubAppToken(req: http.IncomingMessage, installationId: string, body: Buffer): Promise<Reply> {
    const jwt = /^bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
    let claims: Record<string, unknown> | null = null;
    try {
      claims = jwt ? (decodeJwt(jwt) as Record<string, unknown>) : null;
    } catch {
      claims = null;
    }
    let repositories: string[] | null = null;
    try {
      const parsed = body.length ? (JSON.parse(body.toString('utf8')) as { repositories?: unknown }) : {};
      if (Array.isArray(parsed.repositories)) repositories = parsed.repositories.map(String);
    } catch {
      return json(400, { message: 'Problems parsing JSON', documentation_url: 'https://docs.github.com/rest' });
    }
    const record = (outcome: string, token: string | null = null) =>
      mints.push({ installationId, claims, repositories, outcome, token });
    const refuse = (message: string) => {
      record(message);
      return json(401, { message, documentation_url: 'https://docs.github.com/rest', status: '401' });
    };
    const app = installations.get(installationId);
    if (!jwt || !claims) return refuse('A JSON web token could not be decoded');
    if (typeof claims.iat !== 'number' || typeof claims.exp !== 'number')
      return refuse("'Issued at' claim ('iat') must be an Integer representing the time that the assertion was issued");
    if (claims.exp - claims.iat > 600) return refuse("'Expiration time' claim ('exp') is too far in the future");
    if (!app || String(claims.iss) !== app.appId) {
      record('Not Found');
      return json(404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest', status: '404' });
    }
    try {
      await jwtVerify(jwt, app.publicKey, { algorithms: ['RS256'], clockTolerance: 60 });
    } catch (err) {
      if (err instanceof joseErrors.JWTExpired)
        return refuse(
          "'Expiration time' claim ('exp') must be a numeric value representing the future time at which the assertion expires",
        );
      return refuse('A JSON web token could not be decoded');
    }
    const name = repository.split('/').pop()!.toLowerCase();
    if (repositories && repositories.some((r) => r.toLowerCase() !== name)) {
      record('not accessible');
      return json(422, {
        message:
          'There is at least one repository that does not exist or is not accessible to the parent installation.',
        documentation_url: 'https://docs.github.com/rest/apps/apps#create-an-installation-access-token-for-an-app',
        status: '422',
      });
    }
    const token = `ghs_${randomBytes(18).toString('base64url')}`;
    tokens.add(token);
    record('granted', token);
    const expires = new Date(Date.now() + (app.tokenTtlS ?? 3600) * 1000);
    return json(201, {
      token,
      expires_at: expires.toISOString().replace(/\.\d{3}Z$/, 'Z'),
      permissions: { contents: 'read', metadata: 'read' },
      repository_selection: repositories ? 'selected' : 'all',
    });
  }

  async function github(req: http.IncomingMessage, parts: string[], query: URLSearchParams): Promise<Reply> {
    const header = req.headers.authorization;
    const presented = header ? /^(?:token|bearer)\s+(\S+)$/i.exec(header)?.[1] : undefined;
    if (header !== undefined && (presented === undefined || !tokens.has(presented)))
      return json(401, {
        message: 'Bad credentials',
        documentation_url: 'https://docs.github.com/rest',
        status: '401',
      });
    const [first, owner = '', name = '', kind, ...rest] = parts;
    if (first !== 'repos' || `${owner}/${name}`.toLowerCase() !== repository.toLowerCase()) return ghNotFound();
    if (presented === undefined) return ghNotFound(); // a private repository, to an anonymous caller
    if (req.method !== 'GET') return ghNotFound();
    const api = `${url}/api/v3/repos/${repository}`;

    if (kind === 'branches' && rest.length) {
      const branch = rest.join('/');
      const sha = await bare.branch(branch);
      if (!sha)
        return json(404, {
          message: 'Branch not found',
          documentation_url: 'https://docs.github.com/rest/branches/branches#get-a-branch',
          status: '404',
        });
      const c = await bare.commitInfo(sha);
      return json(200, {
        name: branch,
        commit: {
          sha,
          url: `${api}/commits/${sha}`,
          commit: {
            author: { name: c.authorName, email: c.authorEmail, date: c.authorDate },
            committer: { name: c.committerName, email: c.committerEmail, date: c.committerDate },
            message: c.message,
            tree: { sha: c.tree, url: `${api}/git/trees/${c.tree}` },
          },
          parents: c.parents.map((p) => ({ sha: p, url: `${api}/commits/${p}` })),
        },
        _links: { self: `${api}/branches/${branch}`, html: `${url}/${repository}/tree/${branch}` },
        protected: false,
      });
    }

    if (kind === 'git' && rest[0] === 'trees' && rest.length === 2) {
      const tree = await bare.resolve(rest[1]!, 'tree');
      if (!tree) return ghNotFound();
      const entries = (await bare.lsTree(tree, '', query.has('recursive'))) ?? [];
      const truncated = entries.length > limits.githubTreeEntries;
      return json(200, {
        sha: tree,
        url: `${api}/git/trees/${tree}`,
        tree: entries.slice(0, limits.githubTreeEntries).map((e) => ({
          path: e.path,
          mode: e.mode,
          type: e.type,
          sha: e.sha,
          ...(e.size === null ? {} : { size: e.size }),
          url: `${api}/git/${e.type === 'tree' ? 'trees' : 'blobs'}/${e.sha}`,
        })),
        truncated,
      });
    }

    if (kind === 'contents') {
      const path = rest.join('/');
      const ref = query.get('ref') ?? 'main';
      const commit = await bare.resolve(ref, 'commit');
      if (!commit)
        return json(404, {
          message: `No commit found for the ref ${ref}`,
          documentation_url: 'https://docs.github.com/rest/repos/contents',
          status: '404',
        });
      if (path !== '' && !isPath(path)) return ghNotFound();
      const item = (e: { path: string; sha: string; size: number; type: string }) => ({
        name: e.path.split('/').pop(),
        path: e.path,
        sha: e.sha,
        size: e.size,
        url: `${api}/contents/${e.path}?ref=${ref}`,
        html_url: `${url}/${repository}/blob/${ref}/${e.path}`,
        git_url: `${api}/git/blobs/${e.sha}`,
        download_url: e.type === 'file' ? `${url}/raw/${repository}/${ref}/${e.path}` : null,
        type: e.type,
      });
      const file = path === '' ? null : await bare.blob(commit, path);
      if (file) {
        const whole = file.bytes.length <= limits.githubContentBytes;
        return json(200, {
          ...item({ path, sha: file.sha, size: file.bytes.length, type: 'file' }),
          content: whole ? base64Lines(file.bytes) : '',
          encoding: whole ? 'base64' : 'none',
        });
      }
      const listing = await bare.lsTree(commit, path, false);
      if (!listing) return ghNotFound();
      return json(
        200,
        listing.map((e) =>
          item({ path: e.path, sha: e.sha, size: e.size ?? 0, type: e.type === 'tree' ? 'dir' : 'file' }),
        ),
      );
    }
    return ghNotFound();
  }

  // ------------------------------------------------------------------------------------------- GitLab REST
  async function gitlab(
    req: http.IncomingMessage,
    parts: string[],
    query: URLSearchParams,
    rawPath: string,
  ): Promise<Reply> {
    const bearer = /^bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
    const privateToken = req.headers['private-token'];
    const presented = typeof privateToken === 'string' ? privateToken : bearer;
    const offered = privateToken !== undefined || req.headers.authorization !== undefined;
    if (offered && (presented === undefined || !tokens.has(presented)))
      return json(401, { message: '401 Unauthorized' });
    const [first, id = '', area, kind, ...rest] = parts;
    const project = id === repository || id === String(projectId);
    if (first !== 'projects' || !project || presented === undefined)
      return json(404, { message: '404 Project Not Found' });
    if (area !== 'repository' || req.method !== 'GET') return json(404, { error: '404 Not Found' });

    if (kind === 'branches' && rest.length) {
      const branch = rest.join('/');
      const sha = await bare.branch(branch);
      if (!sha) return json(404, { message: '404 Branch Not Found' });
      const c = await bare.commitInfo(sha);
      return json(200, {
        name: branch,
        merged: false,
        protected: false,
        default: branch === 'main',
        developers_can_push: false,
        developers_can_merge: false,
        can_push: true,
        web_url: `${url}/${repository}/-/tree/${branch}`,
        commit: {
          id: sha,
          short_id: sha.slice(0, 8),
          created_at: c.committerDate,
          parent_ids: c.parents,
          title: c.message.split('\n')[0],
          message: c.message,
          author_name: c.authorName,
          author_email: c.authorEmail,
          authored_date: c.authorDate,
          committer_name: c.committerName,
          committer_email: c.committerEmail,
          committed_date: c.committerDate,
          trailers: {},
          extended_trailers: {},
          web_url: `${url}/${repository}/-/commit/${sha}`,
        },
      });
    }

    if (kind === 'commits' && rest.length === 1) {
      const sha = await bare.resolve(rest[0]!, 'commit');
      if (!sha) return json(404, { message: '404 Commit Not Found' });
      const c = await bare.commitInfo(sha);
      return json(200, {
        id: sha,
        short_id: sha.slice(0, 8),
        created_at: c.committerDate,
        parent_ids: c.parents,
        title: c.message.split('\n')[0],
        message: c.message,
        author_name: c.authorName,
        author_email: c.authorEmail,
        committed_date: c.committerDate,
        web_url: `${url}/${repository}/-/commit/${sha}`,
      });
    }

    if (kind === 'tree' && rest.length === 0) {
      const ref = query.get('ref') ?? 'main';
      const path = (query.get('path') ?? '').replace(/^\/+|\/+$/g, '');
      const commit = await bare.resolve(ref, 'commit');
      if (!commit || (path !== '' && !isPath(path))) return json(404, { message: '404 Tree Not Found' });
      const entries = await bare.lsTree(commit, path, query.get('recursive') === 'true');
      if (!entries) return json(404, { message: '404 Tree Not Found' });
      const perPage = Math.min(Math.max(Number.parseInt(query.get('per_page') ?? '20', 10) || 20, 1), 100);
      const page = Math.max(Number.parseInt(query.get('page') ?? '1', 10) || 1, 1);
      const total = entries.length;
      const totalPages = Math.max(Math.ceil(total / perPage), 1);
      const slice = entries.slice((page - 1) * perPage, page * perPage);
      const counted = total <= 10_000; // GitLab leaves the totals out above 10,000 rows
      const href = (p: number) => {
        const q = new URLSearchParams({ id, ...Object.fromEntries(query), page: String(p), per_page: String(perPage) });
        q.sort();
        return `${url}${rawPath}?${q.toString()}`;
      };
      const links = [
        ...(page > 1 ? [`<${href(page - 1)}>; rel="prev"`] : []),
        ...(page < totalPages ? [`<${href(page + 1)}>; rel="next"`] : []),
        `<${href(1)}>; rel="first"`,
        ...(counted ? [`<${href(totalPages)}>; rel="last"`] : []),
      ];
      return json(
        200,
        slice.map((e) => ({ id: e.sha, name: e.path.split('/').pop(), type: e.type, path: e.path, mode: e.mode })),
        {
          link: links.join(', '),
          'x-page': String(page),
          'x-per-page': String(perPage),
          'x-next-page': page < totalPages ? String(page + 1) : '',
          'x-prev-page': page > 1 ? String(page - 1) : '',
          ...(counted ? { 'x-total': String(total), 'x-total-pages': String(totalPages) } : {}),
        },
      );
    }

    if (kind === 'files' && rest.length >= 2 && rest[rest.length - 1] === 'raw') {
      const path = rest.slice(0, -1).join('/');
      const ref = query.get('ref') ?? 'main';
      const commit = await bare.resolve(ref, 'commit');
      if (!commit) return json(404, { message: '404 Commit Not Found' });
      const file = await bare.blob(commit, path);
      if (!file) return json(404, { message: '404 File Not Found' });
      return {
        status: 200,
        headers: {
          'content-type': 'text/plain; charset=utf-8',
          'content-disposition': `inline; filename="${encodeURIComponent(path.split('/').pop() ?? '')}"`,
          'x-gitlab-blob-id': file.sha,
          'x-gitlab-commit-id': commit,
          'x-gitlab-file-path': encodeURIComponent(path),
          'x-gitlab-size': String(file.bytes.length),
        },
        body: file.bytes,
      };
    }
    return json(404, { error: '404 Not Found' });
  }

  // ------------------------------------------------------------------------------------------- OAuth
  function remember(grant: OAuthGrant) {
    tokens.add(grant.accessToken);
  }

  function githubOAuth(req: http.IncomingMessage, params: Params): Reply {
    const accept = req.headers.accept ?? '';
    const answer = (body: Record<string, string>): Reply =>
      /application\/json/i.test(accept)
        ? json(200, body)
        : {
            status: 200,
            headers: { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' },
            body: new URLSearchParams(body).toString(),
          };
    const record = (outcome: string) =>
      exchanges.push({
        provider: 'github',
        params: Object.fromEntries(params),
        accept: req.headers.accept ?? null,
        auth: req.headers.authorization ?? null,
        outcome,
      });
    const error = (code: string, description: string, anchor: string) => {
      record(code);
      return answer({
        error: code,
        error_description: description,
        error_uri: `https://docs.github.com/apps/managing-oauth-apps/troubleshooting-oauth-app-access-token-request-errors/#${anchor}`,
      });
    };
    const clientId = params.get('client_id') ?? '';
    if (!clients.has(clientId) || clients.get(clientId) !== params.get('client_secret'))
      return error(
        'incorrect_client_credentials',
        'The client_id and/or client_secret passed are incorrect.',
        'incorrect-client-credentials',
      );
    const grant = grants.get(params.get('code') ?? '');
    if (!grant || grant.clientId !== clientId)
      return error('bad_verification_code', 'The code passed is incorrect or expired.', 'bad-verification-code');
    const redirect = params.get('redirect_uri');
    if (redirect !== undefined && redirect !== grant.redirectUri)
      return error(
        'redirect_uri_mismatch',
        'The redirect_uri MUST match the registered callback URL for this application.',
        'redirect-uri-mismatch2',
      );
    grants.delete(grant.code);
    remember(grant);
    record('granted');
    return answer({ access_token: grant.accessToken, token_type: 'bearer', scope: grant.scope ?? 'repo' });
  }

  function gitlabOAuth(req: http.IncomingMessage, params: Params): Reply {
    const basic = /^basic\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
    const [basicId, basicSecret] = basic ? Buffer.from(basic, 'base64').toString('utf8').split(':') : [];
    const clientId = params.get('client_id') ?? basicId ?? '';
    const clientSecret = params.get('client_secret') ?? basicSecret;
    const grantType = params.get('grant_type') ?? '';
    const record = (outcome: string) =>
      exchanges.push({
        provider: 'gitlab',
        params: Object.fromEntries(params),
        accept: req.headers.accept ?? null,
        auth: req.headers.authorization ?? null,
        outcome,
      });
    const error = (status: number, code: string, description: string) => {
      record(code);
      return json(status, { error: code, error_description: description });
    };
    const invalidGrant = () =>
      error(
        400,
        'invalid_grant',
        'The provided authorization grant is invalid, expired, revoked, does not match the redirection URI used in ' +
          'the authorization request, or was issued to another client.',
      );
    if (grantType !== 'authorization_code' && grantType !== 'refresh_token')
      return error(
        400,
        'unsupported_grant_type',
        'The authorization grant type is not supported by the authorization server.',
      );
    if (!clients.has(clientId) || clients.get(clientId) !== clientSecret)
      return error(
        401,
        'invalid_client',
        'Client authentication failed due to unknown client, no client authentication included, or unsupported ' +
          'authentication method.',
      );
    let grant: OAuthGrant;
    if (grantType === 'authorization_code') {
      const found = grants.get(params.get('code') ?? '');
      if (!found || found.clientId !== clientId || params.get('redirect_uri') !== found.redirectUri)
        return invalidGrant();
      grants.delete(found.code);
      grant = found;
    } else {
      const old = refreshTokens.get(params.get('refresh_token') ?? '');
      if (!old || old.clientId !== clientId) return invalidGrant();
      refreshTokens.delete(old.refreshToken!);
      tokens.delete(old.accessToken);
      grant = {
        ...old,
        accessToken: `${old.accessToken}.refreshed-${randomBytes(4).toString('hex')}`,
        refreshToken: `refresh-${randomBytes(16).toString('hex')}`,
      };
    }
    const refreshToken = grant.refreshToken ?? `refresh-${randomBytes(16).toString('hex')}`;
    const issued = { ...grant, refreshToken };
    refreshTokens.set(refreshToken, issued);
    remember(issued);
    record('granted');
    return json(200, {
      access_token: issued.accessToken,
      token_type: 'Bearer',
      expires_in: 7200,
      refresh_token: refreshToken,
      scope: issued.scope ?? 'api read_repository',
      created_at: Math.floor(Date.now() / 1000),
    });
  }

  // ------------------------------------------------------------------------------------------- dispatch
  async function handle(req: http.IncomingMessage): Promise<Reply> {
    const raw = req.url ?? '/';
    const q = raw.indexOf('?');
    const path = q < 0 ? raw : raw.slice(0, q);
    const search = q < 0 ? '' : raw.slice(q + 1);
    const privateToken = req.headers['private-token'];
    requests.push({
      method: req.method ?? 'GET',
      path,
      query: search,
      auth: req.headers.authorization ?? (typeof privateToken === 'string' ? privateToken : null),
      headers: req.headers,
    });
    const body = await readBody(req);
    const query = new URLSearchParams(search);
    const parts = segments(path);
    if (!parts) return json(400, { message: 'Bad Request' });
    if (path === '/login/oauth/access_token' && req.method === 'POST')
      return githubOAuth(req, paramsOf(query, req, body));
    if (path === '/oauth/token' && req.method === 'POST') return gitlabOAuth(req, paramsOf(query, req, body));
    if (
      parts.length === 6 &&
      parts[0] === 'api' &&
      parts[1] === 'v3' &&
      parts[2] === 'app' &&
      parts[3] === 'installations' &&
      parts[5] === 'access_tokens' &&
      req.method === 'POST'
    )
      return githubAppToken(req, parts[4]!, body);
    if (parts[0] === 'api' && parts[1] === 'v3') return github(req, parts.slice(2), query);
    if (parts[0] === 'api' && parts[1] === 'v4') return gitlab(req, parts.slice(2), query, path);
    return json(404, { message: 'Not Found' });
  }

  const server = http.createServer((req, res) => {
    requestCount += 1;
    const id = `${String(requestCount)}:${randomBytes(4).toString('hex')}`;
    res.setHeader('x-github-request-id', id);
    res.setHeader('x-request-id', id);
    handle(req).then(
      (reply) => send(res, reply),
      (err: unknown) => {
        errors.push(err);
        if (res.headersSent) res.destroy();
        else send(res, json(500, { message: '500 Internal Server Error' }));
      },
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;

  return {
    url,
    githubApi: `${url}/api/v3`,
    repository,
    projectId,
    repo: bare.repo,
    tokens,
    requests,
    limits,
    oauth: {
      allow(grant) {
        grants.set(grant.code, grant);
        clients.set(grant.clientId, grant.clientSecret);
      },
      exchanges,
    },
    apps: {
      install(app) {
        installations.set(app.installationId, app);
      },
      mints,
    },
    errors,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(root, { recursive: true, force: true });
    },
  };
}
