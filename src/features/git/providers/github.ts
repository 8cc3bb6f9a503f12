import { Octokit } from '@octokit/rest';
import { DomainError } from '../../../kernel/http/errors.ts';
import { GitProviderFailed, GitRefNotFound } from '../git.errors.ts';
import { guardedFetch } from './guarded-fetch.ts';
import { isUnder, type ProviderAccess, type RepositoryPort } from './port.ts';

const statusOf = (err: unknown) =>
  err && typeof err === 'object' && 'status' in err && typeof err.status === 'number' ? err.status : 0;

/** A provider failure as this service answers it: its own errors pass, an unknown ref is named, the rest is 502. */
function failure(err: unknown, ref?: string): Error {
  if (err instanceof DomainError) return err;
  // Octokit wraps what its fetch throws (the outbound helper's refusal) in a RequestError of its own.
  const cause = err && typeof err === 'object' && 'cause' in err ? err.cause : undefined;
  if (cause instanceof DomainError) return cause;
  const status = statusOf(err);
  if (ref !== undefined && (status === 404 || status === 422)) return new GitRefNotFound({ ref });
  return new GitProviderFailed({ reason: status ? `answered ${String(status)}` : 'network' });
}

/** Octokit on the API's address, through the outbound helper, with a token (or an app's JWT: sent as Bearer). */
const client = (a: ProviderAccess) =>
  new Octokit({
    auth: a.token,
    baseUrl: (a.baseUrl ?? 'https://api.github.com').replace(/\/+$/, ''),
    userAgent: 'content-service',
    request: { fetch: guardedFetch(a), retries: 0 },
    // Octokit logs every failed request to the console; the failure is answered (and logged) by the caller.
    log: { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined },
  });

/**
 * An installation token of a GitHub App, asked with the app's JWT (`a.token`) and limited to the integration's
 * repository: what the repository is then read with, for the hour it lives.
 */
export async function githubInstallationToken(
  a: ProviderAccess,
  installationId: string,
): Promise<{ token: string; expiresAt: string }> {
  const repo = a.repository.split('/')[1] ?? '';
  try {
    const { data } = await client(a).rest.apps.createInstallationAccessToken({
      installation_id: Number(installationId),
      repositories: [repo],
    });
    return { token: data.token, expiresAt: data.expires_at };
  } catch (err) {
    throw failure(err);
  }
}

/**
 * GitHub (and GitHub Enterprise: `baseUrl` is its API address, `https://ghe.example.com/api/v3`) through
 * @octokit/rest, with a personal access token or an app installation token.
 */
export function githubRepository(a: ProviderAccess): RepositoryPort {
  const octokit = client(a);
  const [owner = '', repo = ''] = a.repository.split('/');
  return {
    async branchHead(branch) {
      try {
        const { data } = await octokit.rest.repos.getBranch({ owner, repo, branch });
        return data.commit.sha;
      } catch (err) {
        throw failure(err, branch);
      }
    },
    async listFiles(sha, dir) {
      try {
        const { data } = await octokit.rest.git.getTree({ owner, repo, tree_sha: sha, recursive: 'true' });
        if (data.truncated) throw new GitProviderFailed({ reason: 'the repository tree is too large to list' });
        return data.tree
          .filter((e) => e.type === 'blob' && typeof e.path === 'string' && isUnder(e.path, dir))
          .map((e) => ({ path: e.path!, size: e.size ?? 0 }));
      } catch (err) {
        throw failure(err, sha);
      }
    },
    async readFile(sha, path) {
      try {
        const { data } = await octokit.rest.repos.getContent({ owner, repo, path, ref: sha });
        if (Array.isArray(data) || data.type !== 'file' || !('content' in data))
          throw new GitProviderFailed({ reason: `${path} is not a file` });
        // Above 1 MiB GitHub answers `encoding: none` and no content: such a file is far past any intent's size.
        if (data.encoding !== 'base64') throw new GitProviderFailed({ reason: `${path} is too large to read` });
        return Buffer.from(data.content, 'base64').toString('utf8');
      } catch (err) {
        throw failure(err);
      }
    },
  };
}
