import { Branches, Commits, Repositories, RepositoryFiles } from '@gitbeaker/core';
import { createRequesterFn } from '@gitbeaker/requester-utils';
import { DomainError } from '../../../kernel/http/errors.ts';
import { GitProviderFailed, GitRefNotFound } from '../git.errors.ts';
import { guardedFetch } from './guarded-fetch.ts';
import { isUnder, type ProviderAccess, type RepositoryPort } from './port.ts';

/** The answer of a failed request, kept for `failure` (Gitbeaker's own request handler would retry 429s ten times). */
class ProviderStatus extends Error {
  constructor(readonly status: number) {
    super(`answered ${String(status)}`);
  }
}

function failure(err: unknown, ref?: string): Error {
  if (err instanceof DomainError) return err;
  if (err instanceof ProviderStatus) {
    if (ref !== undefined && err.status === 404) return new GitRefNotFound({ ref });
    return new GitProviderFailed({ reason: err.message });
  }
  return new GitProviderFailed({ reason: 'network' });
}

/**
 * Gitbeaker's resources with a request handler of this service: every call goes through the outbound helper
 * (`guardedFetch`), once, without retries. @gitbeaker/rest would call the global fetch, past the helper.
 */
function requesterFor(a: ProviderAccess) {
  const send = guardedFetch(a);
  return createRequesterFn(
    (_, options) => Promise.resolve(options),
    async (endpoint, options) => {
      const o = (options ?? {}) as {
        prefixUrl?: string;
        searchParams?: string;
        method?: string;
        headers?: Record<string, string>;
        body?: string;
      };
      const base = o.prefixUrl ?? '';
      const url = new URL(endpoint, base.endsWith('/') ? base : `${base}/`);
      url.search = o.searchParams ?? '';
      const res = await send(url, {
        method: o.method ?? 'GET',
        headers: o.headers ?? {},
        ...(typeof o.body === 'string' ? { body: o.body } : {}),
      });
      if (!res.ok) throw new ProviderStatus(res.status);
      const headers = new Map<string, string>();
      res.headers.forEach((value, name) => headers.set(name, value));
      const type = (res.headers.get('content-type') ?? '').split(';')[0]!.trim();
      const body = type === 'application/json' ? ((await res.json()) as Record<string, unknown>) : await res.text();
      return { body, headers: Object.fromEntries(headers), status: res.status };
    },
  );
}

/** Pages of 100 tree entries read at most (GitHub's tree API stops at 100 000 entries; this at 10 000). */
const MAX_PAGES = 100;

/** GitLab (gitlab.com or self-hosted: `baseUrl` is the instance's address) through @gitbeaker/core. */
export function gitlabRepository(a: ProviderAccess): RepositoryPort {
  const options = {
    host: (a.baseUrl ?? 'https://gitlab.com').replace(/\/+$/, ''),
    token: a.token,
    requesterFn: requesterFor(a),
  };
  const branches = new Branches(options);
  const trees = new Repositories(options);
  const commits = new Commits(options);
  const files = new RepositoryFiles(options);
  const project = a.repository;
  return {
    async branchHead(branch) {
      try {
        const b = await branches.show(project, branch);
        return b.commit.id;
      } catch (err) {
        throw failure(err, branch);
      }
    },
    async listFiles(sha, dir) {
      let listed;
      try {
        listed = await trees.allRepositoryTrees(project, {
          ref: sha,
          recursive: true,
          ...(dir ? { path: dir } : {}),
          perPage: 100,
          maxPages: MAX_PAGES,
          showExpanded: true,
        });
      } catch (err) {
        // GitLab (16.5 on) answers a folder the commit lacks 404, as it answers an unknown commit: which is it?
        if (!(err instanceof ProviderStatus && err.status === 404 && dir !== '')) throw failure(err, sha);
        try {
          await commits.show(project, sha);
        } catch (again) {
          throw failure(again, sha);
        }
        return [];
      }
      // Gitbeaker stops at `maxPages` and answers what it has: a tree cut short is refused, never read as whole.
      // Offset pagination at run time (Gitbeaker's types say keyset for this call): `next` names a page not read.
      const info = listed.paginationInfo as unknown as { next?: number | null };
      if (info.next) throw new GitProviderFailed({ reason: 'the repository tree is too large to list' });
      return listed.data
        .filter((e) => e.type === 'blob' && isUnder(e.path, dir))
        .map((e) => ({ path: e.path, size: null }));
    },
    async readFile(sha, path) {
      try {
        const raw: unknown = await files.showRaw(project, path, sha);
        if (typeof raw === 'string') return raw;
        if (raw instanceof Blob) return await raw.text();
        return JSON.stringify(raw);
      } catch (err) {
        throw failure(err);
      }
    },
  };
}
